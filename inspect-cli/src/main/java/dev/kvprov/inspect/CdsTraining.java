package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.cli.KvpCommand;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.KvprovRecord.Field;
import io.opentelemetry.api.common.Attributes;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.Deflater;
import picocli.CommandLine;

/**
 * The training run for {@code kvp}'s class-data-sharing archive: writes a small pool holding every
 * writer's kinds of records to a temporary directory and runs the read commands on it, so that the
 * classes a real run loads are the ones archived. {@code bin/kvp} and the Debian package run it
 * once, with {@code -XX:DumpLoadedClassList}, then dump the archive from that list. Its runs take
 * the pool by its live name, as on a VM, so the locks' binding ahead ({@code LockBinding}) is in
 * it.
 *
 * <p>Usage: {@code java -cp kvp.jar dev.kvprov.inspect.CdsTraining}. Prints nothing; exits 0.
 */
public final class CdsTraining {
  private static final String VM = "00840e55-9be2-d441-a716-446655440000";

  private CdsTraining() {}

  public static void main(String[] args) throws IOException {
    Path dir = Files.createTempDirectory("kvp-cds-training");
    try {
      PoolFile.builder().directory(dir).build().append(records());
      Path lines = Files.writeString(dir.resolve("lines"), "Support-Step=done\nImage=2026.11\n");
      String[][] runs = {
        {"--help"},
        {"list"},
        {"list", "--json"},
        {"list", "--raw"},
        // the options whose values picocli converts and checks as list's model says
        {"list", "--level", "WARN", "--since", "2026-11-22T04:00:00Z", "--writer", "kvprov"},
        {"tree"},
        {"tree", "--json"},
        {"blame"},
        {"timeline"},
        {"report"},
        {"doctor"},
        {"decode"},
        {"get", "PROVISIONING_REPORT"},
        // the writes last: they change the pool the reads above are trained on
        {"set", "Support-Ticket", "123456"},
        {"append", "--from", lines.toString()},
        {"delete", "Support-Ticket"}
      };
      for (String[] run : runs) {
        String[] withDir = new String[run.length + 2];
        System.arraycopy(run, 0, withDir, 0, run.length);
        withDir[run.length] = "--dir";
        withDir[run.length + 1] = dir.toString();
        CommandLine cli = KvpCommand.commandLine(withDir);
        cli.setOut(new PrintWriter(OutputStream.nullOutputStream()));
        cli.setErr(new PrintWriter(OutputStream.nullOutputStream()));
        cli.execute(run[0].equals("--help") ? run : withDir);
      }
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  static List<KvpRecord> records() {
    List<KvpRecord> out = new ArrayList<>();
    String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    out.addAll(
        kvprov(
            KvprovRecord.Kind.START,
            "00f067aa0ba902b7",
            List.of(
                new Field(KvpRecordFormat.START, "2026-11-22T04:47:46.100Z"),
                new Field(KvpRecordFormat.BOOT, "3.100"),
                new Field(KvpRecordFormat.TRACE, trace),
                new Field(KvpRecordFormat.SPAN, "00f067aa0ba902b7"),
                new Field(KvpRecordFormat.NAME, "provision"))));
    out.addAll(
        kvprov(
            KvprovRecord.Kind.END,
            "00f067aa0ba902b7",
            List.of(
                new Field(KvpRecordFormat.START, "2026-11-22T04:47:46.100Z"),
                new Field(KvpRecordFormat.END, "2026-11-22T04:47:47.350Z"),
                new Field(KvpRecordFormat.BOOT, "3.100-4.350"),
                new Field(KvpRecordFormat.STATUS, "error"),
                new Field(KvpRecordFormat.ERROR, "x".repeat(1200)),
                new Field(KvpRecordFormat.TRACE, trace),
                new Field(KvpRecordFormat.SPAN, "00f067aa0ba902b7"),
                new Field(KvpRecordFormat.NAME, "provision"))));
    String event =
        "{\"name\":\"init-local/azure-ds\",\"type\":\"%s\",\"ts\":\"2026-11-22T04:47:46.422448Z\"%s,\"msg\":\"%s\"}";
    out.add(
        new KvpRecord(
            "CLOUD_INIT|1795322355|start|init-local/azure-ds|c13f6684-dbd7-4601-b22a-6201baf37db7",
            String.format(event, "start", "", "azure-ds")));
    out.add(
        new KvpRecord(
            "CLOUD_INIT|1795322355|finish|init-local/azure-ds|ce79eac3-5746-4e7b-b232-d18a6fd7b9e0",
            String.format(event, "finish", ",\"result\":\"FAIL\"", "failed")));
    byte[] zlib = deflate("dmesg line\n".repeat(40).getBytes(UTF_8));
    String payload =
        "{\\\"encoding\\\": \\\"gz+b64\\\", \\\"data\\\": \\\""
            + Base64.getMimeEncoder(76, new byte[] {'\n'})
                .encodeToString(zlib)
                .replace("\n", "\\\\n")
            + "\\\"}";
    out.add(
        new KvpRecord(
            "CLOUD_INIT|1795322355|compressed|dmesg|f6f6ec3d-f600-46f8-810c-0780c5839d49|0",
            "{\"name\":\"dmesg\",\"type\":\"compressed\",\"ts\":\"2026-11-22T04:47:46.423194Z\","
                + "\"msg_i\":0,\"msg\":\""
                + payload
                + "\"}"));
    out.add(
        new KvpRecord(
            "azure-init-0.1.1|" + VM + "|INFO|azure_init:provision|0c1f9b1e",
            "Start: 2026-11-22T04:47:46.000Z | End: 2026-11-22T04:47:48.000Z"));
    out.add(
        new KvpRecord(
            "azure-init-0.1.1|" + VM + "|ERROR|azure_init:user|0c1f9b1f",
            "Time: 2026-11-22T04:47:47.000Z | Event: message=useradd failed"));
    out.add(
        new KvpRecord(
            "PROVISIONING_REPORT",
            "result=error|reason=useradd failed|agent=kvprov/0.1.0|vm_id="
                + VM
                + "|timestamp=2026-11-22T04:47:48.000000+00:00"));
    return out;
  }

  private static List<KvpRecord> kvprov(KvprovRecord.Kind kind, String id, List<Field> fields) {
    return KvpRecordFormat.encode(
        new KvprovRecord(
            kind,
            KvprovRecord.Level.INFO,
            VM,
            id,
            fields,
            Attributes.builder().put("step.detail", "short").put("attempt", 1L).build()));
  }

  private static byte[] deflate(byte[] data) {
    Deflater deflater = new Deflater();
    deflater.setInput(data);
    deflater.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    while (!deflater.finished()) {
      out.write(buf, 0, deflater.deflate(buf));
    }
    deflater.end();
    return out.toByteArray();
  }
}
