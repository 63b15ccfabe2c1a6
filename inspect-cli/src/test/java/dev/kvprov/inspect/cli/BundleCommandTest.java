package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.KvprovSpanRecords;
import dev.kvprov.inspect.RawPool;
import dev.kvprov.inspect.RescuedDisk;
import dev.kvprov.inspect.TestBundle;
import dev.kvprov.inspect.bundle.UserNames;
import dev.kvprov.kvp.KvpRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvp bundle} on a rescued root, checked by unpacking what it wrote: every part named in its
 * manifest, no secret, and with {@code --redact-users} no user name.
 */
class BundleCommandTest {
  @TempDir Path dir;
  private Path root;

  @BeforeEach
  void aRescuedRoot() throws Exception {
    RawPool pool = new RawPool().addBytes(Fixtures.bytes(Fixtures.CLOUD_INIT_POOL));
    for (KvpRecord r :
        KvprovSpanRecords.end(
            KvprovSpanRecords.spanId(0),
            null,
            "provision.user /home/azureuser",
            "2026-11-22T04:47:48.000Z",
            "2026-11-22T04:47:49.000Z")) {
      pool.add(r.key(), r.value());
    }
    root = RescuedDisk.of(dir, Fixtures.bytes(Fixtures.AZURE_INIT_DIAG_POOL), pool.bytes());
    Path marker = root.resolve("var/lib/kvprov/vm-1.provisioned");
    Files.writeString(marker, "2026-11-22T04:47:49Z\n");
    Files.setLastModifiedTime(
        marker,
        java.nio.file.attribute.FileTime.from(java.time.Instant.parse("2026-11-22T04:47:49Z")));
    // what the state directory may also hold, and a bundle never carries
    Files.writeString(root.resolve("var/lib/kvprov/ovf-env.xml"), Fixtures.text(Fixtures.OVF_ENV));
    Path etc = Files.createDirectories(root.resolve("etc/kvprov"));
    Files.writeString(
        etc.resolve("kvprov.toml"),
        "[imds]\nendpoint = \"http://169.254.169.254\"\n[telemetry]\notlp_token = \""
            + Fixtures.CANARY
            + "\"\n");
    Files.writeString(
        Files.createDirectories(root.resolve("etc")).resolve("passwd"),
        "root:x:0:0::/root:/bin/bash\nazureuser:x:1000:100::/home/azureuser:/bin/bash\n");
  }

  private static Map<String, String> unpack(Path bundle) throws Exception {
    Map<String, String> files = new LinkedHashMap<>();
    TestBundle.stored(bundle).forEach((name, bytes) -> files.put(name, new String(bytes, UTF_8)));
    return files;
  }

  @Test
  void aRescuedRoot_givesEveryPartItsManifestNames_andNoSecret() throws Exception {
    Path bundle = dir.resolve("ticket.tar.gz");

    CliRun run = CliRun.of("bundle", "--root", root.toString(), "-o", bundle.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    Map<String, String> files = unpack(bundle);
    assertThat(files.keySet())
        .containsExactly(
            "kvp-bundle/pools/.kvp_pool_1",
            "kvp-bundle/pools/archive/pool1-1795322355.kvp",
            "kvp-bundle/kvp/report.txt",
            "kvp-bundle/kvp/tree.txt",
            "kvp-bundle/kvp/list-wide.txt",
            "kvp-bundle/kvp/doctor.txt",
            "kvp-bundle/kvp/timeline.txt",
            "kvp-bundle/kvp/timeline.html",
            "kvp-bundle/config/etc/kvprov/kvprov.toml",
            "kvp-bundle/state/markers.txt",
            "kvp-bundle/MANIFEST.txt");
    assertThat(files.get("kvp-bundle/pools/.kvp_pool_1").getBytes(UTF_8).length)
        .isEqualTo(
            Files.readString(root.resolve("var/lib/hyperv/.kvp_pool_1")).getBytes(UTF_8).length);
    assertThat(files.get("kvp-bundle/kvp/tree.txt"))
        .contains("azure-ds/failing_step", "provision:run");
    assertThat(files.get("kvp-bundle/config/etc/kvprov/kvprov.toml"))
        .contains("otlp_token = \"[redacted]\"", "endpoint = \"http://169.254.169.254\"");
    assertThat(files.get("kvp-bundle/state/markers.txt"))
        .contains("vm-1.provisioned  written 2026-11-22T04:47:49Z", "ovf-env.xml")
        .doesNotContain("<");
    assertThat(files.get("kvp-bundle/MANIFEST.txt")).contains("added kvp/tree.txt", "no journal");
    assertThat(String.join("\n", files.values())).doesNotContain(Fixtures.CANARY);
    assertThat(run.out()).contains("wrote " + bundle + " (11 files)");
    assertThat(
            java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(bundle)))
        .isEqualTo("rw-------");
  }

  @Test
  void redactUsers_replacesEveryUserName_withAStableHash() throws Exception {
    Path bundle = dir.resolve("shareable.tar.gz");

    CliRun run =
        CliRun.of("bundle", "--root", root.toString(), "-o", bundle.toString(), "--redact-users");

    assertThat(run.exit()).as(run.err()).isZero();
    Map<String, String> files = unpack(bundle);
    String hashed = "user-" + UserNames.hash("azureuser");
    assertThat(String.join("\n", files.values())).doesNotContain("azureuser").contains(hashed);
    assertThat(files.get("kvp-bundle/kvp/tree.txt")).contains("provision.user /home/" + hashed);
    assertThat(List.of(files.get("kvp-bundle/pools/.kvp_pool_1")))
        .allMatch(p -> p.contains(hashed));
  }

  @Test
  void linksOutOfTheDisk_specialFiles_andSecretsInAnyShape_stayOutOfTheBundle() throws Exception {
    Path host = Files.writeString(dir.resolve("host-secret.txt"), "HOST-" + Fixtures.CANARY);
    Path etc = root.resolve("etc/kvprov");
    Files.createSymbolicLink(etc.resolve("evil.toml"), host);
    Files.createSymbolicLink(root.resolve("var/lib/kvprov/x.ready"), host);
    Process fifo =
        new ProcessBuilder("mkfifo", root.resolve("var/lib/kvprov/y.ready").toString()).start();
    assertThat(fifo.waitFor()).isZero();
    Files.writeString(
        Files.createDirectories(etc.resolve("kvprov.toml.d")).resolve("more.toml"),
        "api_token = \"\"\"\nline-one-"
            + Fixtures.CANARY
            + "\n\"\"\"\n"
            + "otlp_headers = { Authorization = \"Bearer "
            + Fixtures.CANARY
            + "\" }\n"
            + "endpoint = \"https://user:"
            + Fixtures.CANARY
            + "@collector/v1?sig="
            + Fixtures.CANARY
            + "\"\n",
        java.nio.file.StandardOpenOption.CREATE);
    Path bundle = dir.resolve("out");
    Files.createDirectories(bundle);

    CliRun run = CliRun.of("bundle", "--root", root.toString(), "-o", bundle.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    Path written;
    try (var files = Files.list(bundle)) {
      written = files.findFirst().orElseThrow();
    }
    assertThat(written.getFileName().toString()).startsWith("kvp-bundle-").endsWith(".tar.gz");
    Map<String, String> files = unpack(written);
    assertThat(String.join("\n", files.values())).doesNotContain(Fixtures.CANARY, "HOST-");
    assertThat(files.get("kvp-bundle/MANIFEST.txt")).contains("evil.toml: a link: not followed");
    assertThat(files.get("kvp-bundle/state/markers.txt")).contains("x.ready", "y.ready");
  }

  @Test
  void aFileThatIsNotAPool_isNotTaken() throws Exception {
    Path media = Files.writeString(dir.resolve("ovf-env.xml"), Fixtures.text(Fixtures.OVF_ENV));
    Path bundle = dir.resolve("media.tar.gz");

    CliRun run = CliRun.of("bundle", "--file", media.toString(), "-o", bundle.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    Map<String, String> files = unpack(bundle);
    assertThat(files.keySet()).noneMatch(n -> n.startsWith("kvp-bundle/pools/"));
    assertThat(String.join("\n", files.values())).doesNotContain(Fixtures.CANARY);
    assertThat(files.get("kvp-bundle/MANIFEST.txt")).contains("not taken: " + media);
  }
}
