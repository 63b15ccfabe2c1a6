package dev.kvprov.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.RecordCodec;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.common.Attributes;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * Host-side exports for {@code kvp fleet}, as the PowerShell in docs/inspect.md writes them: one
 * {@code Msvm_KvpExchangeDataItem} CIM-XML instance per line.
 *
 * <ul>
 *   <li>{@code FleetExports from-pool POOL OUT}: a pool file (a demo boot's) as its export.
 *   <li>{@code FleetExports generate DIR VMS RECORDS}: {@code VMS} exports {@code vm-00001.xml}… of
 *       {@code RECORDS} records each: a kvprov boot (its real step names, IMDS tried one to four
 *       times, one VM in 20 failing at IMDS, one in 25 at the user, one in 50 never finishing), log
 *       records up to the count, and the report. Deterministic: VM {@code i} is drawn from seed
 *       {@code i}.
 * </ul>
 */
public final class FleetExports {
  private static final XMLOutputFactory XML = XMLOutputFactory.newFactory();
  private static final String[] STEPS = {
    "resource_disk",
    "imds.fetch",
    "media.read_ovf",
    "provision.hostname",
    "provision.user",
    "provision.password",
    "provision.sudoers",
    "provision.sshd",
    "provision.ssh_keys",
    "wireserver.report"
  };

  private final Random random;
  private final String vm;
  private final List<KvpRecord> out = new ArrayList<>();
  private final SpanRecords spans;

  private FleetExports(int seed) {
    random = new Random(seed);
    vm = String.format(Locale.ROOT, "00840e55-9be2-d441-a716-%012d", seed);
    spans = new SpanRecords(vm, Instant.parse("2026-11-27T06:00:00Z").plusSeconds(seed), 3.0, out);
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 3 && args[0].equals("from-pool")) {
      List<KvpRecord> records = new ArrayList<>();
      for (PoolEntry e : RecordCodec.decode(Files.readAllBytes(Path.of(args[1]))).entries()) {
        records.add(e.record());
      }
      write(Path.of(args[2]), records);
    } else if (args.length == 4 && args[0].equals("generate")) {
      Path dir = Files.createDirectories(Path.of(args[1]));
      int vms = Integer.parseInt(args[2]);
      int records = Integer.parseInt(args[3]);
      for (int i = 1; i <= vms; i++) {
        FleetExports boot = new FleetExports(i);
        boot.boot(records);
        write(dir.resolve(String.format(Locale.ROOT, "vm-%05d.xml", i)), boot.out);
      }
      System.err.printf("%s: %d exports of %d records%n", dir, vms, records);
    } else {
      System.err.println(
          "usage: FleetExports from-pool POOL OUT | generate DIR VMS RECORDS\n"
              + "  e.g. FleetExports generate /dev/shm/fleet 10000 200");
      System.exit(2);
    }
  }

  /** One first boot of about {@code records} records, the report last. */
  private void boot(int records) {
    int fate = random.nextInt(100);
    String failAt = fate < 5 ? "imds.fetch" : fate < 9 ? "provision.user" : null;
    String hangAt = fate >= 9 && fate < 11 ? STEPS[2 + random.nextInt(STEPS.length - 2)] : null;
    String trace = hex(32);
    SpanRecords.Open root = spans.start(trace, hex(16), null, "provision");
    String failed = null;
    for (String step : STEPS) {
      SpanRecords.Open span = spans.start(trace, hex(16), root.id(), step);
      if (step.equals(hangAt)) {
        advance(2000 + random.nextInt(30000));
        log(trace, span.id(), "still waiting");
        break;
      }
      if (step.equals("imds.fetch")) {
        int attempts =
            step.equals(failAt) ? 5 : 1 + (random.nextInt(4) == 0 ? random.nextInt(4) : 0);
        for (int a = 1; a <= attempts; a++) {
          SpanRecords.Open attempt = spans.start(trace, hex(16), span.id(), "imds.attempt");
          advance(
              a == attempts && failAt == null ? 200 + random.nextInt(400) : 5 + random.nextInt(20));
          spans.end(
              attempt,
              a < attempts || failAt != null ? "IMDS answered HTTP 503" : null,
              Attributes.empty());
          advance(a < attempts ? 100 << a : 0);
        }
      } else {
        advance(
            step.equals("provision.user") ? 150 + random.nextInt(600) : 2 + random.nextInt(120));
      }
      String error = step.equals(failAt) ? errorOf(step) : null;
      spans.end(span, error, Attributes.empty());
      if (error != null) {
        failed = step;
        break;
      }
    }
    while (out.size() < records - (hangAt == null ? 2 : 0)) {
      log(trace, root.id(), "provisioning detail " + out.size());
    }
    if (hangAt != null) {
      return;
    }
    spans.end(root, failed == null ? null : errorOf(failed), Attributes.empty());
    ProvisioningReport report =
        failed == null
            ? ProvisioningReport.success("kvprov/0.1.0", vm, spans.now())
            : ProvisioningReport.failure(
                failed.equals("imds.fetch")
                    ? "Failed to fetch instance metadata"
                    : "Failed to create the admin user",
                "kvprov/0.1.0",
                vm,
                spans.now(),
                new LinkedHashMap<>());
    out.add(new KvpRecord("PROVISIONING_REPORT", report.encode()));
  }

  private static String errorOf(String step) {
    return step.equals("imds.fetch")
        ? "IMDS did not answer after 5 attempts"
        : "useradd exited with status 9";
  }

  private void log(String trace, String span, String body) {
    spans.log(trace, span, span + ".l" + hex(8), body);
    advance(1);
  }

  private void advance(long millis) {
    spans.advance(millis);
  }

  private String hex(int digits) {
    StringBuilder s = new StringBuilder(digits);
    for (int i = 0; i < digits; i++) {
      s.append(Character.forDigit(random.nextInt(16), 16));
    }
    return s.toString();
  }

  /** The records as an export: an instance a line, UTF-8, as PowerShell 7's Out-File writes. */
  static void write(Path file, List<KvpRecord> records) throws IOException {
    try (Writer text = new BufferedWriter(Files.newBufferedWriter(file, UTF_8))) {
      for (KvpRecord r : records) {
        text.write(instance(r.key(), r.value()));
        text.write('\n');
      }
    } catch (XMLStreamException e) {
      throw new IOException(e);
    }
  }

  private static String instance(String name, String data) throws XMLStreamException {
    java.io.StringWriter text = new java.io.StringWriter();
    XMLStreamWriter xml = XML.createXMLStreamWriter(text);
    xml.writeStartElement("INSTANCE");
    xml.writeAttribute("CLASSNAME", "Msvm_KvpExchangeDataItem");
    property(xml, "Data", "string", data);
    property(xml, "Name", "string", name);
    property(xml, "Source", "uint16", "1");
    xml.writeEndElement();
    xml.close();
    return text.toString();
  }

  private static void property(XMLStreamWriter xml, String name, String type, String value)
      throws XMLStreamException {
    xml.writeStartElement("PROPERTY");
    xml.writeAttribute("NAME", name);
    xml.writeAttribute("TYPE", type);
    xml.writeStartElement("VALUE");
    xml.writeCharacters(value);
    xml.writeEndElement();
    xml.writeEndElement();
  }
}
