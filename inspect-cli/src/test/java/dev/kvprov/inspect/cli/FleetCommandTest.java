package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.pool.HostExport;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolVisitor;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvp fleet} on demo boots' host exports (src/test/resources/fleet: a good boot, a flaky
 * IMDS, IMDS down with no media, the wireserver down, and a good boot's export taken mid-boot), on
 * pools and bundles made from them, and on what is no VM at all.
 */
class FleetCommandTest {
  static final Path FLEET = Path.of("src/test/resources/fleet");
  static final Path GOOD = FLEET.resolve("vm-01-ok.xml");

  @TempDir Path dir;

  @Test
  void aDirectory_givesALinePerVm_inNameOrder_thenTheSteps_andTheFailuresByReason() {
    CliRun run = CliRun.of("fleet", FLEET.toString());

    List<String> lines = run.out().lines().toList();
    assertThat(run.exit()).isEqualTo(ExitCode.FOUND.code);
    assertThat(lines.get(0))
        .startsWith("VM ")
        .contains("VERDICT", "BOOT", "SLOWEST STEP", "REASON");
    assertThat(lines.subList(1, 6))
        .satisfiesExactly(
            l -> assertThat(l).startsWith("vm-01-ok ").contains(" ok "),
            l -> assertThat(l).startsWith("vm-02-flaky-imds ").contains(" ok ", "imds.fetch"),
            l -> assertThat(l).startsWith("vm-05-cut ").contains(" unfinished ", "still in "),
            l ->
                assertThat(l)
                    .startsWith("vm-08-imds-down-no-")
                    .contains(" failed ", "(step imds.fetch)"),
            l -> assertThat(l).startsWith("vm-12-wireserver-down ").contains(" failed "));
    assertThat(run.out())
        .contains("5 VMs: 2 ok, 2 failed, 1 unfinished")
        .contains("FAILURES BY REASON")
        .containsPattern("(?m)^imds\\.fetch +5 +1 +\\d ");
    assertThat(run.err()).isEmpty();
  }

  @Test
  void aPool_anExport_andABundle_ofOneBoot_sayTheSameOfIt() throws Exception {
    Path pool = dir.resolve("as-pool.kvp");
    PoolFile.builder().file(pool).build().append(records(GOOD));
    Path bundle = dir.resolve("as-bundle.tar.gz");
    CliRun bundled = CliRun.of("bundle", "--host-xml", GOOD.toString(), "-o", bundle.toString());
    assertThat(bundled.exit()).as(bundled.err()).isZero();
    Path poolBundle = dir.resolve("pool-bundle.tar.gz");
    assertThat(CliRun.of("bundle", "--file", pool.toString(), "-o", poolBundle.toString()).exit())
        .isZero();

    CliRun run =
        CliRun.of(
            "fleet",
            "--json",
            GOOD.toString(),
            pool.toString(),
            bundle.toString(),
            poolBundle.toString());

    assertThat(run.exit()).as(run.err()).isEqualTo(ExitCode.OK.code);
    JsonNode vms = run.json().get("vms");
    assertThat(vms).hasSize(4);
    assertThat(names(vms)).containsExactly("vm-01-ok", "as-pool", "as-bundle", "pool-bundle");
    for (JsonNode vm : vms) {
      assertThat(vm.get("verdict").asText()).isEqualTo("ok");
      assertThat(vm.get("duration_ms")).isEqualTo(vms.get(0).get("duration_ms"));
      assertThat(vm.get("steps")).isEqualTo(vms.get(0).get("steps"));
    }
    assertThat(run.json().get("verdicts").toString()).isEqualTo("{\"ok\":4}");
  }

  @Test
  void whatIsNoVm_isSaidOnItsOwnLine_andTheOthersAreRead() throws Exception {
    Files.copy(GOOD, dir.resolve("a-good.xml"));
    Files.writeString(dir.resolve("b-notes.txt"), "VM a: rebooted twice\n");
    Path notABundle = dir.resolve("c-logs.tar.gz");
    try (var tar =
        new org.apache.commons.compress.archivers.tar.TarArchiveOutputStream(
            new java.util.zip.GZIPOutputStream(Files.newOutputStream(notABundle)))) {
      var entry = new org.apache.commons.compress.archivers.tar.TarArchiveEntry("var/log/syslog");
      byte[] log = "boot\n".getBytes(UTF_8);
      entry.setSize(log.length);
      tar.putArchiveEntry(entry);
      tar.write(log);
      tar.closeArchiveEntry();
    }
    Files.write(dir.resolve("d-truncated.tar.gz"), new byte[] {0x1f, (byte) 0x8b, 8, 0});
    Files.createDirectory(dir.resolve("e-subdirectory"));

    CliRun run = CliRun.of("fleet", dir.toString());

    assertThat(run.exit()).isEqualTo(ExitCode.FOUND.code);
    assertThat(run.out().lines().skip(1).limit(4))
        .satisfiesExactly(
            l -> assertThat(l).startsWith("a-good ").contains(" ok "),
            l ->
                assertThat(l)
                    .startsWith("b-notes ")
                    .contains(" unreadable ")
                    .endsWith("is neither a pool, a host-side export nor a kvp bundle (text)"),
            l ->
                assertThat(l)
                    .startsWith("c-logs ")
                    .endsWith(
                        "a tar or gzip archive, but no kvp bundle (nothing under kvp-bundle/)"),
            l ->
                assertThat(l)
                    .startsWith("d-truncated ")
                    .contains(" unreadable ")
                    .endsWith(
                        "a tar or gzip archive that cannot be read to its end (it is cut short)"));
    assertThat(run.out()).contains("4 VMs: 1 ok, 3 unreadable").doesNotContain("e-subdirectory");
    assertThat(run.out() + run.err())
        .doesNotContainPattern("[a-z]+\\.[a-z]+\\.[A-Z]\\w+(Exception|Error)");
  }

  @Test
  void aPathThatIsNotThere_isAnIoError_inOneLine() {
    CliRun run = CliRun.of("fleet", FLEET.toString(), dir.resolve("no-such").toString());

    assertThat(run.exit()).isEqualTo(ExitCode.IO.code);
    assertThat(run.err())
        .isEqualTo("kvp fleet: " + dir.resolve("no-such") + ": no such file or directory\n");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void anEmptyDirectory_saysSo_andFindsNothing() {
    CliRun run = CliRun.of("fleet", dir.toString());

    assertThat(run.exit()).isEqualTo(ExitCode.FOUND.code);
    assertThat(run.err()).isEqualTo("kvp fleet: no files to read in " + dir + "\n");
    assertThat(run.out()).contains("0 VMs");
  }

  @Test
  void manyVms_readOnWorkers_comeOutInNameOrder_andTheJsonIsOneObject() throws Exception {
    List<String> names = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      names.add(String.format("vm-%03d", (i * 37) % 120)); // made out of order
    }
    List<Path> sources = List.of(GOOD, FLEET.resolve("vm-08-imds-down-no-media.xml"));
    for (int i = 0; i < names.size(); i++) {
      Files.copy(sources.get(i % 2), dir.resolve(names.get(i) + ".xml"));
    }

    CliRun text = CliRun.of("fleet", dir.toString());
    CliRun json = CliRun.of("fleet", "--json", dir.toString());

    List<String> order = text.out().lines().skip(1).limit(120).map(l -> l.split(" ")[0]).toList();
    assertThat(order).isSorted().hasSize(120).doesNotHaveDuplicates();
    JsonNode fleet = json.json();
    assertThat(names(fleet.get("vms"))).isEqualTo(order);
    assertThat(fleet.get("count").asInt()).isEqualTo(120);
    assertThat(fleet.get("failures").get(0).get("vms").asInt()).isEqualTo(60);
    assertThat(fleet.get("failures").get(0).get("named")).hasSize(3);
  }

  private static List<String> names(JsonNode vms) {
    List<String> names = new ArrayList<>();
    vms.forEach(vm -> names.add(vm.get("name").asText()));
    return names;
  }

  /** The export's records, as the pool the VM wrote them to holds them. */
  private static List<KvpRecord> records(Path export) throws Exception {
    List<KvpRecord> records = new ArrayList<>();
    try (Reader in = Files.newBufferedReader(export, UTF_8)) {
      HostExport.scan(
          in,
          new PoolVisitor() {
            @Override
            public void entry(PoolEntry entry) {
              records.add(entry.record());
            }
          });
    }
    return records;
  }
}
