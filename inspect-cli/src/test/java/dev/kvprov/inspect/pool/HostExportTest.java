package dev.kvprov.inspect.pool;

import static java.nio.charset.StandardCharsets.UTF_16LE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.cli.KvpCommandTest;
import dev.kvprov.inspect.writers.Event;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamWriter;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Host-side exports (kvp-facts §6) of the cloud-init fixture pool, in all three forms: read as
 * {@code --host-xml}, they must give exactly what the pool file gives.
 */
public class HostExportTest {
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
  public static String instance(String name, String data, boolean dataFirst) throws Exception {
    return instance(name, data, dataFirst, "1");
  }

  private static String instance(String name, String data, boolean dataFirst, String source)
      throws Exception {
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
    property(xml, "Source", source);
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
  private static String powerShellJson(Object value) throws Exception {
    return new ObjectMapper()
        .writerWithDefaultPrettyPrinter()
        .writeValueAsString(value)
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
      CliRun run = CliRun.of("list", "--json", "--host-xml", "-");
      assertThat(run.exit()).as(run.err()).isZero();
      assertThat(run.out())
          .isEqualTo(
              CliRun.of("list", "--json", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString())
                  .out());
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

  /** What the reader reports, in order: an entry's index and record, or a problem's. */
  private record Event(int index, long offset, String text) {
    @Override
    public String toString() {
      return index + " @" + offset + " " + text;
    }
  }

  private static List<Event> scan(String export) throws IOException {
    List<Event> events = new ArrayList<>();
    HostExport.scan(
        new StringReader(export),
        new PoolVisitor() {
          @Override
          public void entry(PoolEntry entry) {
            events.add(new Event(entry.index(), entry.offset(), entry.key() + "=" + entry.value()));
          }

          @Override
          public void problem(KvpProblem problem) {
            assertThat(problem.kind()).isEqualTo(KvpProblem.Kind.EXPORT_ITEM_INVALID);
            events.add(new Event(problem.recordIndex(), problem.offset(), problem.detail()));
          }
        });
    return events;
  }

  private static Event entry(int index, String key, String value) {
    return new Event(index, -1, key + "=" + value);
  }

  /** A problem's event, matched on its index, offset and the words of its detail. */
  private static Condition<Event> problem(int index, long offset, String... words) {
    return new Condition<>(
        e ->
            e.index() == index
                && e.offset() == offset
                && Arrays.stream(words).allMatch(e.text()::contains),
        "problem %d at %d saying %s",
        index,
        offset,
        List.of(words));
  }

  @Test
  void aCutItem_isOneProblem_andTheItemAfterItIsRead_withExactOffsets() throws Exception {
    String cut = instance("k1", "v1", false);
    cut = cut.substring(0, cut.length() / 2);
    StringBuilder export = new StringBuilder("\r\n \r\n");
    // a prologue is part of the item it precedes, not text of its own
    export.append("<?xml version=\"1.0\"?>").append(instance("k0", "v0", true)).append("\r\n");
    int cutLine = export.length();
    export.append(cut).append("\r\n");
    export.append(instance("k2", "v2", true));
    int cutConcatenated = export.length();
    export.append(cut);
    export.append(instance("k3", "v3", false)).append('\n');
    int junk = export.length();
    export.append("Get-VMKvp : not recognized\n").append(instance("k4", "v4", true));
    int cutAtEnd = export.length();
    export.append(cut);

    List<Event> events = scan(export.toString());

    assertThat(events)
        .satisfiesExactly(
            e -> assertThat(e).isEqualTo(entry(0, "k0", "v0")),
            e ->
                assertThat(e)
                    .is(problem(1, cutLine, "item 1: ", "cut short", "before the next <INSTANCE>")),
            e -> assertThat(e).isEqualTo(entry(2, "k2", "v2")),
            e -> assertThat(e).is(problem(3, cutConcatenated, "cut short")),
            e -> assertThat(e).isEqualTo(entry(4, "k3", "v3")),
            e -> assertThat(e).is(problem(5, junk, "not an <INSTANCE>", "\"Get-VMKvp")),
            e -> assertThat(e).isEqualTo(entry(6, "k4", "v4")),
            e -> assertThat(e).is(problem(7, cutAtEnd, "cut short", "before the export ends")));
    assertThat(scan("\n\n  " + cut).get(0))
        .is(problem(0, 4, "cut short", "before the export ends"));
  }

  @Test
  void anOverlongRun_isOneProblem_andDiscardsOnlyUpToTheNextItem() throws Exception {
    StringBuilder export = new StringBuilder(instance("k0", "v0", true)).append('\n');
    int junk = export.length();
    export.append("x".repeat(HostExport.MAX_ITEM_CHARS + 10)).append('\n');
    export.append(instance("k1", "v1", false)).append('\n');
    int longItem = export.length();
    export
        .append("<INSTANCE CLASSNAME=\"Msvm_KvpExchangeDataItem\"><PROPERTY NAME=\"Data\"><VALUE>")
        .append("y".repeat(HostExport.MAX_ITEM_CHARS))
        .append(" <INSTANCENAME> is not a start tag ")
        .append('\n');
    export.append(instance("k2", "v2", true));
    int cut = export.length();
    export.append("<INSTANCE><PROPERTY NAME=\"Name\"><VALUE>torn");
    export.append(instance("k3", "v3", true));

    List<Event> events = scan(export.toString());

    assertThat(events)
        .satisfiesExactly(
            e -> assertThat(e).isEqualTo(entry(0, "k0", "v0")),
            e -> assertThat(e).is(problem(1, junk, "more than 65536 characters")),
            e -> assertThat(e).isEqualTo(entry(2, "k1", "v1")),
            e -> assertThat(e).is(problem(3, longItem, "no </INSTANCE> within 65536 characters")),
            e -> assertThat(e).isEqualTo(entry(4, "k2", "v2")),
            e -> assertThat(e).is(problem(5, cut, "cut short")),
            e -> assertThat(e).isEqualTo(entry(6, "k3", "v3")));
  }

  @Test
  void aJsonStringLongerThanAnItem_isOneProblem_andTheArrayGoesOn() throws Exception {
    String longString = "x".repeat(HostExport.MAX_ITEM_CHARS + 1);
    String json =
        "\n  "
            + powerShellJson(
                List.of(instance("k0", "v0", true), longString, instance("k1", "v1", false)));
    int at = json.indexOf("\"xxx");

    assertThat(scan(json))
        .satisfiesExactly(
            e -> assertThat(e).isEqualTo(entry(0, "k0", "v0")),
            e -> assertThat(e).is(problem(1, at, "longer than 65536 characters")),
            e -> assertThat(e).isEqualTo(entry(2, "k1", "v1")));
    String withoutClose = json.substring(0, json.lastIndexOf(']'));
    assertThat(scan(withoutClose))
        .hasSize(4)
        .last()
        .is(problem(3, withoutClose.length(), "cannot be read further"));
  }

  @Test
  void aJsonStringBeyondTheParsersBound_stopsTheArray_sayingWhy() throws Exception {
    String json =
        new ObjectMapper()
            .writeValueAsString(
                List.of(
                    instance("k0", "v0", true),
                    "x".repeat(2 * HostExport.MAX_JSON_STRING_CHARS),
                    instance("k1", "v1", false)));

    List<Event> events = scan(json);

    assertThat(events).hasSize(2).first().isEqualTo(entry(0, "k0", "v0"));
    assertThat(events.get(1).index()).isEqualTo(1);
    assertThat(events.get(1).text())
        .contains("longer than " + HostExport.MAX_JSON_STRING_CHARS, "cannot be read further");
  }

  @Test
  void onlyAValueDirectlyInsideAPropertyNamedNameOrData_counts() throws Exception {
    String item =
        "<INSTANCE CLASSNAME=\"Msvm_KvpExchangeDataItem\">"
            + "<PROPERTY NAME=\"Name\" TYPE=\"string\"><VALUE>k</VALUE></PROPERTY>"
            + "<PROPERTY.ARRAY NAME=\"Name\" TYPE=\"string\">"
            + "<VALUE.ARRAY><VALUE>array name</VALUE></VALUE.ARRAY></PROPERTY.ARRAY>"
            + "<PROPERTY NAME=\"Data\" TYPE=\"string\">"
            + "<QUALIFIER NAME=\"Data\" TYPE=\"string\"><VALUE>qualifier</VALUE></QUALIFIER>"
            + "<VALUE>v</VALUE></PROPERTY>"
            + "<PROPERTY.ARRAY NAME=\"Tags\" TYPE=\"string\">"
            + "<VALUE.ARRAY><VALUE>tag</VALUE></VALUE.ARRAY></PROPERTY.ARRAY>"
            + "<VALUE>stray</VALUE>"
            + "</INSTANCE>";

    assertThat(scan(item)).containsExactly(entry(0, "k", "v"));
  }

  @Test
  void aNameOrDataWithTwoValues_isAProblem_notAGuess() throws Exception {
    String twoNames =
        "<INSTANCE CLASSNAME=\"Msvm_KvpExchangeDataItem\"><PROPERTY NAME=\"Name\">"
            + "<VALUE>a</VALUE><VALUE>b</VALUE></PROPERTY></INSTANCE>";
    String twoDataProperties =
        "<INSTANCE CLASSNAME=\"Msvm_KvpExchangeDataItem\">"
            + "<PROPERTY NAME=\"Name\"><VALUE>k</VALUE></PROPERTY>"
            + "<PROPERTY NAME=\"Data\"><VALUE>a</VALUE></PROPERTY>"
            + "<PROPERTY NAME=\"data\"><VALUE>b</VALUE></PROPERTY></INSTANCE>";
    String export = twoNames + "\n" + twoDataProperties + "\n" + instance("k", "v", true);

    assertThat(scan(export))
        .satisfiesExactly(
            e -> assertThat(e).is(problem(0, 0, "Name", "2 values")),
            e -> assertThat(e).is(problem(1, twoNames.length() + 1, "Data", "2 values")),
            e -> assertThat(e).isEqualTo(entry(2, "k", "v")));
  }

  @Test
  void anInstanceOfAnotherClass_isAProblem_namingTheClass() throws Exception {
    String vm =
        "<INSTANCE CLASSNAME=\"Msvm_ComputerSystem\">"
            + "<PROPERTY NAME=\"Name\"><VALUE>4A2B7C3D-0000</VALUE></PROPERTY></INSTANCE>";
    String lowerCase =
        instance("k", "v", true)
            .replace("\"Msvm_KvpExchangeDataItem\"", "\"msvm_kvpexchangedataitem\"");
    String noClass =
        instance("k2", "v2", true).replace(" CLASSNAME=\"Msvm_KvpExchangeDataItem\"", "");

    assertThat(scan(vm + lowerCase + noClass))
        .satisfiesExactly(
            e ->
                assertThat(e)
                    .is(problem(0, 0, "Msvm_ComputerSystem", "not Msvm_KvpExchangeDataItem")),
            e -> assertThat(e).isEqualTo(entry(1, "k", "v")),
            e -> assertThat(e).isEqualTo(entry(2, "k2", "v2")));
  }

  @Test
  void everySource_isKeptAsTheExportHasIt() throws Exception {
    String export =
        instance("host", "pushed", true, "0")
            + instance("intrinsic", "os", false, "2")
            + instance("hostOnly", "x", true, "4")
            + instance("guest", "y", false, "1");

    assertThat(scan(export))
        .containsExactly(
            entry(0, "host", "pushed"),
            entry(1, "intrinsic", "os"),
            entry(2, "hostOnly", "x"),
            entry(3, "guest", "y"));
  }

  @Test
  void aOneItemCollection_isABareJsonString_andIsRead() throws Exception {
    String item = instance("PROVISIONING_REPORT", "result=success", true);
    Path export = write("one.json", powerShellJson(item).getBytes(UTF_8));

    CliRun run = CliRun.of("list", "--json", "--host-xml", export.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.jsonLines()).hasSize(1);
    assertThat(run.jsonLines().get(0).path("key").asText()).isEqualTo("PROVISIONING_REPORT");
    assertThat(run.jsonLines().get(0).path("value").asText()).isEqualTo("result=success");
  }

  @Test
  void aCutLine_inAFile_isAnItemOfItsOwn_andHidesNothing() throws Exception {
    List<String> lines = new ArrayList<>(instances());
    int total = lines.size();
    lines.set(1, lines.get(1).substring(0, 50));
    Path export = write("cut.xml", String.join("\n", lines).getBytes(UTF_8));

    CliRun run = CliRun.of("list", "--json", "--host-xml", export.toString());

    assertThat(run.exit()).isEqualTo(1);
    List<JsonNode> items = run.jsonLines();
    assertThat(items.get(1).path("problems").get(0).asText())
        .contains("EXPORT_ITEM_INVALID", "item 1", "cut short");
    assertThat(items.stream().mapToInt(i -> i.path("records").size()).sum())
        .as("every other record is still read")
        .isEqualTo(total - 1);
  }
}
