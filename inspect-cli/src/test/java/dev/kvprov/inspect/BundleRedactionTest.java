package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.bundle.UserNames;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvprovRecord;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvp bundle --redact-users} after a run that failed before the admin user existed: the name
 * is then only in the pool, in whatever shape each writer gave it, and never in {@code
 * /etc/passwd}. Every name planted must be gone from every file of the bundle.
 */
class BundleRedactionTest {
  /** The names, one per place a name is found; none is an account of the image but the last. */
  private static final String IN_SPAN = "spanadmin";

  private static final String REFUSED_BY_CHECK = "imdsrefused";
  private static final String IMDS_BODY = "imdsjson";
  private static final String MEDIA = "mediauser";
  private static final String IN_REPORT = "reportuser";
  private static final String IN_COMMAND = "cmduser";
  private static final String IN_ACCOUNTS = "oldaccount";
  private static final String IN_PAYLOAD = "payloaduser";
  private static final String CUT_BETWEEN_RECORDS = "splituser";

  private static final List<String> NAMES =
      List.of(
          IN_SPAN,
          REFUSED_BY_CHECK,
          IMDS_BODY,
          MEDIA,
          IN_REPORT,
          IN_COMMAND,
          IN_ACCOUNTS,
          IN_PAYLOAD,
          CUT_BETWEEN_RECORDS);

  @TempDir Path dir;

  private static List<KvpRecord> failedSpan(int id, String name, String error, Attributes attrs) {
    return KvpRecordFormat.encode(
        new KvprovRecord(
            KvprovRecord.Kind.END,
            KvprovRecord.Level.ERROR,
            "00840e55-9be2-d441-a716-446655440000",
            KvprovSpanRecords.spanId(id),
            List.of(
                new KvprovRecord.Field(KvpRecordFormat.START, "2026-11-22T04:47:48.000Z"),
                new KvprovRecord.Field(KvpRecordFormat.END, "2026-11-22T04:47:49.000Z"),
                new KvprovRecord.Field(KvpRecordFormat.STATUS, "error"),
                new KvprovRecord.Field(KvpRecordFormat.ERROR, error),
                new KvprovRecord.Field(KvpRecordFormat.TRACE, KvprovSpanRecords.TRACE_ID),
                new KvprovRecord.Field(KvpRecordFormat.SPAN, KvprovSpanRecords.spanId(id)),
                new KvprovRecord.Field(KvpRecordFormat.PARENT, KvprovSpanRecords.spanId(0)),
                new KvprovRecord.Field(KvpRecordFormat.NAME, name)),
            attrs));
  }

  private Path failedRun() throws Exception {
    RawPool pool = new RawPool().addBytes(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    List<KvpRecord> records = new java.util.ArrayList<>();
    records.addAll(
        KvprovSpanRecords.start(
            KvprovSpanRecords.spanId(0), null, "provision", "2026-11-22T04:47:47.000Z"));
    // the user step, refused: /home is a link, so the user was never made
    records.addAll(
        failedSpan(
            1,
            "provision.user",
            "/home/" + IN_SPAN + ": /home is a link out of the root; not followed",
            Attributes.of(AttributeKey.stringKey("user"), IN_SPAN)));
    // the metadata's name refused by the check before any step
    records.addAll(
        failedSpan(
            2,
            "imds.check",
            "adminUsername: user name '"
                + REFUSED_BY_CHECK
                + "' is not a portable user name (a-z, 0-9, _ . -, not starting with - or a"
                + " digit, at most 32)",
            Attributes.empty()));
    // a command that names the user in its arguments
    records.addAll(
        failedSpan(
            3,
            "useradd",
            "exit 9",
            Attributes.of(
                AttributeKey.stringArrayKey("process.command_args"),
                List.of("useradd", "-m", "-s", "/bin/bash", IN_COMMAND))));
    records.addAll(cutInsideTheName());
    for (KvpRecord r : records) {
      pool.add(r.key(), r.value());
    }
    // another writer that logged the metadata's body and the media
    pool.add(
        "CLOUD_INIT|azure-ds|dump|1",
        "{\"compute\": {\"osProfile\": {\"adminUsername\": \""
            + IMDS_BODY
            + "\", \"computerName\": \"vm1\"}}}");
    pool.add(
        "CLOUD_INIT|azure-ds|ovf|2",
        "<ns1:LinuxProvisioningConfigurationSet><ns1:UserName>"
            + MEDIA
            + "</ns1:UserName></ns1:LinuxProvisioningConfigurationSet>");
    // azure-init's event, its payload compressed: the name is in no record as written
    java.io.ByteArrayOutputStream gz = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(gz)) {
      out.write(("Creating user '" + IN_PAYLOAD + "'").getBytes(UTF_8));
    }
    pool.add(
        "DIAG|azure-init/0.1.1|5c0ffee0-4d2b-4c3a-9e1f-0a1b2c3d4e5f|event|user|"
            + "6f707172-7374-4576-b778-797a7b7c7d7f|2026-11-22T04:47:48.330Z|gz+b64|||0",
        java.util.Base64.getEncoder().encodeToString(gz.toByteArray()));
    pool.add(
        "PROVISIONING_REPORT",
        "result=error|reason=\"Could not create user '"
            + IN_REPORT
            + "': the user step failed\"|agent=kvprov/0.1.0|pps_type=None"
            + "|vm_id=00840e55-9be2-d441-a716-446655440000|timestamp=2026-11-22T04:47:49.000Z"
            + "|documentation_url=https://aka.ms/linuxprovisioningerror");
    Path root = RescuedDisk.of(dir, Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL), pool.bytes());
    Files.writeString(
        Files.createDirectories(root.resolve("etc")).resolve("passwd"),
        "root:x:0:0::/root:/bin/bash\n" + IN_ACCOUNTS + ":x:1001:100::/home/old:/bin/bash\n");
    Path etc = Files.createDirectories(root.resolve("etc/kvprov"));
    Files.writeString(
        etc.resolve("kvprov.toml"), "[user]\n# the image's old admin: " + IN_ACCOUNTS + "\n");
    Files.createDirectories(root.resolve("var/lib/kvprov/" + IN_SPAN));
    return root;
  }

  /**
   * A failed span whose message is longer than a record holds, padded so that the writer's cut
   * between two records falls inside the user's name: no record holds the name whole.
   */
  private static List<KvpRecord> cutInsideTheName() {
    for (int pad = 1000; pad < 5000; pad++) {
      List<KvpRecord> records =
          failedSpan(
              4,
              "provision.ssh_keys",
              "x".repeat(pad) + " for user '" + CUT_BETWEEN_RECORDS + "': no key could be used",
              Attributes.empty());
      boolean whole = records.stream().anyMatch(r -> r.value().contains(CUT_BETWEEN_RECORDS));
      String joined = String.join("", records.stream().map(KvpRecord::value).toList());
      if (!whole && joined.contains(CUT_BETWEEN_RECORDS)) {
        return records;
      }
    }
    throw new AssertionError("no padding cuts the name between two records");
  }

  private static Map<String, String> unpack(Path bundle) throws Exception {
    Map<String, String> files = new LinkedHashMap<>();
    TestBundle.stored(bundle)
        .forEach(
            (name, bytes) -> {
              files.put(name, new String(bytes, UTF_8));
              if (name.startsWith("kvp-bundle/pools/")) {
                // a pool as its readers see it: a name cut between two records is whole again here
                files.put(
                    name + " (values joined)",
                    String.join(
                        "",
                        dev.kvprov.kvp.RecordCodec.decode(bytes).records().stream()
                            .map(KvpRecord::value)
                            .toList()));
              }
            });
    return files;
  }

  @Test
  void aFailedRunWhereTheUserNeverExisted_leavesNoNameInAnyFile() throws Exception {
    Path root = failedRun();
    Path bundle = dir.resolve("shared.tar.gz");

    CliRun run =
        CliRun.of("bundle", "--root", root.toString(), "-o", bundle.toString(), "--redact-users");

    assertThat(run.exit()).as(run.err()).isZero();
    Map<String, String> files = unpack(bundle);
    assertThat(files.keySet())
        .contains(
            "kvp-bundle/pools/.kvp_pool_1",
            "kvp-bundle/kvp/report.txt",
            "kvp-bundle/kvp/tree.txt",
            "kvp-bundle/kvp/list-wide.txt",
            "kvp-bundle/kvp/timeline.txt",
            "kvp-bundle/kvp/timeline.html",
            "kvp-bundle/config/etc/kvprov/kvprov.toml",
            "kvp-bundle/state/markers.txt");
    // the names were there to be found: each file that said one says its hash instead
    assertThat(files.get("kvp-bundle/kvp/tree.txt")).contains("user-" + UserNames.hash(IN_REPORT));
    assertThat(files.get("kvp-bundle/state/markers.txt"))
        .contains("user-" + UserNames.hash(IN_SPAN));
    assertThat(files.get("kvp-bundle/config/etc/kvprov/kvprov.toml"))
        .contains("user-" + UserNames.hash(IN_ACCOUNTS));
    for (Map.Entry<String, String> file : files.entrySet()) {
      for (String name : NAMES) {
        assertThat(file.getValue()).as("%s in %s", name, file.getKey()).doesNotContain(name);
      }
    }
    for (String name : NAMES) {
      assertThat(run.out()).as(name).doesNotContain(name);
    }
  }
}
