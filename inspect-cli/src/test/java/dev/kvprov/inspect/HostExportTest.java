package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_16LE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host-side exports (kvp-facts §6) of the cloud-init fixture pool, in all three forms: read as
 * {@code --host-xml}, they must give exactly what the pool file gives.
 */
class HostExportTest {
  @TempDir Path dir;

  /** The fixture's records as CIM-XML instances, written by the JDK's own XML writer. */
  private static List<String> instances() throws Exception {
    List<String> out = new ArrayList<>();
    List<PoolEntry> entries =
        RecordCodec.decode(Files.readAllBytes(KvpCommandTest.CLOUD_INIT_POOL)).entries();
    for (int i = 0; i < entries.size(); i++) {
      out.add(instance(entries.get(i).key(), entries.get(i).value(), i % 2 == 0));
    }
    return out;
  }

  /** One item; {@code dataFirst} varies the property order, as real exports do. */
  static String instance(String name, String data, boolean dataFirst) throws Exception {
    StringWriter text = new StringWriter();
    XMLStreamWriter xml = XMLOutputFactory.newFactory().createXMLStreamWriter(text);
    xml.writeStartElement("INSTANCE");
    xml.writeAttribute("CLASSNAME", "Msvm_KvpExchangeDataItem");
    property(xml, "Caption", null);
    if (dataFirst) {
      property(xml, "Data", data);
      property(xml, "Name", name);
    } else {
      property(xml, "Name", name);
      property(xml, "Data", data);
    }
    property(xml, "Source", "1");
    xml.writeEndElement();
    xml.close();
    return text.toString();
  }

  private static void property(XMLStreamWriter xml, String name, String value) throws Exception {
    xml.writeStartElement("PROPERTY");
    xml.writeAttribute("NAME", name);
    xml.writeAttribute("TYPE", name.equals("Source") ? "uint16" : "string");
    if (value != null && !value.isEmpty()) {
      xml.writeStartElement("VALUE");
      xml.writeCharacters(value);
      xml.writeEndElement();
    }
    xml.writeEndElement();
  }

  private Path write(String name, byte[] bytes) throws Exception {
    Path file = dir.resolve(name);
    Files.write(file, bytes);
    return file;
  }

  /** PowerShell's ConvertTo-Json escapes markup characters as \\u003c and friends. */
  private static String powerShellJson(List<String> items) throws Exception {
    return new ObjectMapper()
        .writerWithDefaultPrettyPrinter()
        .writeValueAsString(items)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("'", "\\u0027");
  }

  @Test
  void allThreeForms_readExactlyAsThePoolFile() throws Exception {
    List<String> instances = instances();
    String json = powerShellJson(instances);
    ByteArrayOutputStream utf16 = new ByteArrayOutputStream();
    utf16.write(new byte[] {(byte) 0xFF, (byte) 0xFE});
    utf16.writeBytes(json.getBytes(UTF_16LE));
    List<Path> exports =
        List.of(
            write("lines.xml", String.join("\r\n", instances).concat("\r\n").getBytes(UTF_8)),
            write("concatenated.xml", String.join("", instances).getBytes(UTF_8)),
            write("array.json", json.getBytes(UTF_8)),
            write("array-utf16.json", utf16.toByteArray()));
    CliRun fromPool =
        CliRun.of("list", "--json", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString());
    assertThat(fromPool.exit()).isZero();

    for (Path export : exports) {
      CliRun fromExport = CliRun.of("list", "--json", "--host-xml", export.toString());

      assertThat(fromExport.exit()).as(export + ": " + fromExport.err()).isZero();
      assertThat(fromExport.out()).as(export.toString()).isEqualTo(fromPool.out());
    }
    CliRun tree = CliRun.of("tree", "--json", "--host-xml", exports.get(2).toString());
    assertThat(tree.out())
        .isEqualTo(
            CliRun.of("tree", "--json", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString()).out());
  }

  @Test
  void stdin_isReadAsAnExportWithDash() throws Exception {
    Path export = write("lines.xml", String.join("\n", instances()).getBytes(UTF_8));
    java.io.InputStream saved = System.in;
    try (java.io.InputStream in = Files.newInputStream(export)) {
      System.setIn(in);
      CliRun run = CliRun.of("report", "--json", "--host-xml", "-");
      assertThat(run.out()).as(run.err()).contains("\"fields\"");
    } finally {
      System.setIn(saved);
    }
  }

  @Test
  void aBrokenItem_isReportedInPlace_andHidesNothingElse() throws Exception {
    List<String> instances = new ArrayList<>(instances());
    int total = instances.size();
    instances.set(2, "<INSTANCE><PROPERTY NAME=\"Name\"><VALUE>cut</PROPERTY></INSTANCE>");
    instances.set(
        3, "<INSTANCE><PROPERTY NAME=\"Data\"><VALUE>no name here</VALUE></PROPERTY></INSTANCE>");
    Path export = write("broken.xml", String.join("\n", instances).getBytes(UTF_8));

    CliRun run = CliRun.of("list", "--json", "--host-xml", export.toString());

    assertThat(run.exit()).isEqualTo(1);
    List<JsonNode> items = run.jsonLines();
    assertThat(items.get(2).path("records")).isEmpty();
    assertThat(items.get(2).path("problems").get(0).asText())
        .contains("EXPORT_ITEM_INVALID", "item 2", "not well-formed");
    assertThat(items.get(3).path("problems").get(0).asText()).contains("no Name property");
    assertThat(items.get(4).path("index").asInt()).isEqualTo(4);
    assertThat(items.stream().mapToInt(i -> i.path("records").size()).sum())
        .as("every other record is still read")
        .isEqualTo(total - 2);
    CliRun doctor = CliRun.of("doctor", "--json", "--host-xml", export.toString());
    assertThat(doctor.json().path("problems").findValuesAsText("kind"))
        .containsExactly("export_item_invalid", "export_item_invalid");
  }

  @Test
  void entities_andDoctypes_areRefused() throws Exception {
    Path secret = write("secret.txt", "never-log-me".getBytes(UTF_8));
    String attack =
        "<!DOCTYPE INSTANCE [<!ENTITY e SYSTEM \""
            + secret.toUri()
            + "\">]><INSTANCE><PROPERTY NAME=\"Name\"><VALUE>k</VALUE></PROPERTY>"
            + "<PROPERTY NAME=\"Data\"><VALUE>&e;</VALUE></PROPERTY></INSTANCE>\n"
            + instance("after", "still read", true);
    Path export = write("attack.xml", attack.getBytes(UTF_8));

    CliRun run = CliRun.of("list", "--json", "--host-xml", export.toString());

    assertThat(run.out() + run.err()).doesNotContain("never-log-me");
    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.jsonLines().get(1).path("value").asText()).isEqualTo("still read");
  }

  @Test
  void brokenJson_keepsWhatCameBefore() throws Exception {
    List<String> instances = instances();
    String json = "[" + new ObjectMapper().writeValueAsString(instances.get(0)) + ", 42, {\"x\": ";
    Path export = write("broken.json", json.getBytes(UTF_8));

    CliRun run = CliRun.of("list", "--json", "--host-xml", export.toString());

    assertThat(run.exit()).isEqualTo(1);
    List<JsonNode> items = run.jsonLines();
    assertThat(items.get(0).path("records").toString()).isEqualTo("[0]");
    assertThat(items.get(1).path("problems").get(0).asText()).contains("JSON number");
    assertThat(items.get(2).path("problems").get(0).asText()).contains("JSON object");
    assertThat(items.get(3).path("problems").get(0).asText()).contains("cannot be read further");
    assertThat(items).hasSize(4);
  }

  @Test
  void jsonThatIsNotJson_isOneProblem_notACrash() throws Exception {
    Path export = write("garbage.json", "[\"<INSTANCE/>\" }}}".getBytes(UTF_8));

    CliRun run = CliRun.of("list", "--json", "--host-xml", export.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out()).contains("cannot be read further");
  }

  @Test
  void optionsThatNameTwoInputs_areAUsageError() {
    CliRun run = CliRun.of("list", "--host-xml", "a.xml", "--file", "b.kvp");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("mutually exclusive");
  }

  @Test
  void set_refusesAHostExport() throws Exception {
    Path export = write("lines.xml", String.join("\n", instances()).getBytes(UTF_8));

    CliRun run = CliRun.of("set", "--host-xml", export.toString(), "k", "v");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("host exports are read-only");
  }
}
