package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvp diff} on pools written record by record as the agent writes them, with times chosen:
 * each kind of change — time, attempts, status, attributes, steps in one boot only — is found and
 * said, and the first line says what matters.
 */
class BootDiffTest {
  private static final Instant T0 = Instant.parse("2026-11-22T04:47:40Z");

  @TempDir Path dir;

  /** A boot being written: spans with times in milliseconds from {@link #T0}. */
  private static final class Boot {
    private final List<KvpRecord> records = new ArrayList<>();
    private int ids;
    private int last;

    /** A span; {@code error} null for one that did not fail. Returns its id. */
    String span(String parent, String name, int from, int to, String error, Attributes attrs) {
      String id = KvprovSpanRecords.spanId(ids++);
      last = Math.max(last, to);
      records.addAll(
          KvprovSpanRecords.end(
              id,
              parent,
              name,
              at(from),
              at(to),
              error,
              attrs == null ? Attributes.empty() : attrs));
      return id;
    }

    String span(String parent, String name, int from, int to) {
      return span(parent, name, from, to, null, null);
    }

    Path write(Path file, boolean ok) throws Exception {
      ProvisioningReport report =
          ok
              ? ProvisioningReport.success("kvprov/test", "vm", T0.plusMillis(last))
              : ProvisioningReport.failure(
                  "SSH key setup failed", "kvprov/test", "vm", T0.plusMillis(last), Map.of());
      RawPool raw = new RawPool();
      records.forEach(r -> raw.add(r.key(), r.value()));
      raw.add("PROVISIONING_REPORT", report.encode());
      Files.write(file, raw.bytes());
      return file;
    }

    private static String at(int millis) {
      return T0.plusMillis(millis).toString();
    }
  }

  /** provision: imds.fetch (with {@code attempts} attempts in {@code imdsMillis}), ssh_keys. */
  private static Boot boot(int attempts, int imdsMillis, String keysError, Attributes keys) {
    Boot boot = new Boot();
    int end = 100 + imdsMillis + 500;
    String run = boot.span(null, "provision", 0, end, keysError == null ? null : "exit 17", null);
    String fetch = boot.span(run, "imds.fetch", 100, 100 + imdsMillis);
    int each = imdsMillis / attempts;
    for (int i = 0; i < attempts; i++) {
      boot.span(fetch, "imds.attempt", 100 + i * each, 100 + (i + 1) * each);
    }
    boot.span(run, "provision.ssh_keys", 100 + imdsMillis, end - 100, keysError, keys);
    return boot;
  }

  private static Attributes keys(long count, String source) {
    return Attributes.of(
        AttributeKey.longKey("keys"), count, AttributeKey.stringKey("source"), source);
  }

  private Path good() throws Exception {
    return boot(1, 200, null, keys(2, "imds")).write(dir.resolve("good.kvp"), true);
  }

  @Test
  void aSlowerBoot_namesTheStepThatTookTheTime_andItsAttempts() throws Exception {
    Path flaky = boot(3, 4400, null, keys(2, "imds")).write(dir.resolve("flaky.kvp"), true);

    CliRun run = CliRun.of("diff", good().toString(), flaky.toString());
    JsonNode json = CliRun.of("diff", "--json", good().toString(), flaky.toString()).json();

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).startsWith("slower by 4.2 s: imds.fetch, 3 attempts against 1\n");
    assertThat(run.out())
        .containsPattern(
            "\n  imds\\.fetch +0\\.200s +4\\.400s +\\+4\\.200s\n +3 attempts against 1\n");
    assertThat(json.path("change_ms").asDouble()).isEqualTo(4200.0);
    assertThat(json.path("explains").asText()).isEqualTo("provision/imds.fetch");
    JsonNode fetch = step(json, "provision/imds.fetch");
    assertThat(fetch.path("a").path("attempts").asInt()).isEqualTo(1);
    assertThat(fetch.path("b").path("attempts").asInt()).isEqualTo(3);
    assertThat(fetch.path("attempts_changed").asBoolean()).isTrue();
    assertThat(step(json, "provision/imds.fetch/imds.attempt").path("b").path("runs").asInt())
        .isEqualTo(3);
  }

  @Test
  void aFasterBoot_saysSo_andTheSameBoot_isAsFast() throws Exception {
    Path flaky = boot(3, 4400, null, keys(2, "imds")).write(dir.resolve("flaky.kvp"), true);

    assertThat(CliRun.of("diff", flaky.toString(), good().toString()).out())
        .startsWith("faster by 4.2 s: imds.fetch, 1 attempt against 3\n");
    CliRun same = CliRun.of("diff", good().toString(), good().toString());
    assertThat(same.out())
        .startsWith(
            "as fast (within 100 ms)\n"
                + "4 steps in both, 0 in A only, 0 in B only; changed: nothing else\n");
  }

  @Test
  void aFailedLaterBoot_exits1_andSaysWhereItFailedFirst() throws Exception {
    Path failed =
        boot(1, 200, "no usable SSH key (index 0)", keys(0, "imds"))
            .write(dir.resolve("failed.kvp"), false);

    CliRun run = CliRun.of("diff", good().toString(), failed.toString());
    JsonNode json = CliRun.of("diff", "--json", good().toString(), failed.toString()).json();

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.out())
        .startsWith("failed first at provision.ssh_keys: no usable SSH key (index 0)\n")
        .contains("\n      ok → FAILED: no usable SSH key (index 0)\n");
    assertThat(json.path("first_failure").asText()).isEqualTo("provision/provision.ssh_keys");
    assertThat(json.path("b").path("failed").asBoolean()).isTrue();
    assertThat(step(json, "provision/provision.ssh_keys").path("status_changed").asBoolean())
        .isTrue();

    CliRun fixed = CliRun.of("diff", failed.toString(), good().toString());
    assertThat(fixed.exit()).isZero();
    assertThat(fixed.out()).startsWith("succeeded where A failed (first at provision.ssh_keys)\n");
  }

  @Test
  void changedAttributes_areSaidUnderTheStep_andAllOfThemInJson() throws Exception {
    Path ovf = boot(1, 200, null, keys(1, "ovf")).write(dir.resolve("ovf.kvp"), true);

    CliRun run = CliRun.of("diff", good().toString(), ovf.toString());
    JsonNode changes =
        step(
                CliRun.of("diff", "--json", good().toString(), ovf.toString()).json(),
                "provision/provision.ssh_keys")
            .path("attributes_changed");

    assertThat(run.out()).contains("\n      keys 2 → 1, source imds → ovf\n");
    assertThat(changes).hasSize(2);
    assertThat(changes.get(1).path("key").asText()).isEqualTo("source");
    assertThat(changes.get(1).path("a").asText()).isEqualTo("imds");
    assertThat(changes.get(1).path("b").asText()).isEqualTo("ovf");
  }

  @Test
  void stepsInOneBootOnly_areMarked_theirOwnStepsOnce() throws Exception {
    Boot a = boot(1, 200, null, keys(2, "imds"));
    String user = a.span(KvprovSpanRecords.spanId(0), "provision.user", 700, 750);
    a.span(user, "exec useradd", 710, 740);
    Boot b = boot(1, 200, null, keys(2, "imds"));
    b.span(KvprovSpanRecords.spanId(0), "media.read_ovf", 50, 90);

    CliRun run =
        CliRun.of(
            "diff",
            a.write(dir.resolve("a.kvp"), true).toString(),
            b.write(dir.resolve("b.kvp"), true).toString());
    JsonNode json =
        CliRun.of(
                "diff", "--json", dir.resolve("a.kvp").toString(), dir.resolve("b.kvp").toString())
            .json();

    assertThat(run.out())
        .contains("4 steps in both, 2 in A only, 1 in B only")
        .containsPattern("\n  media\\.read_ovf +— +0\\.040s\n +only in B\n")
        .containsPattern(
            "\n  provision\\.user +0\\.050s +—\n +only in A\n    exec useradd +0\\.030s +—\n");
    assertThat(step(json, "provision/media.read_ovf").path("a").isNull()).isTrue();
    assertThat(step(json, "provision/provision.user/exec useradd").path("b").isNull()).isTrue();
  }

  @Test
  void twoBootsOfARescuedDisk_byNumber_orTheLastTwo() throws Exception {
    Path flaky = boot(3, 4400, null, keys(2, "imds")).write(dir.resolve("flaky.kvp"), true);
    Path root = RescuedDisk.of(dir, Files.readAllBytes(good()), Files.readAllBytes(flaky));

    CliRun lastTwo = CliRun.of("diff", "--root", root.toString());
    CliRun chosen =
        CliRun.of("diff", "--root", root.toString(), "--boot", "2", "--boot", "1", "--json");

    assertThat(lastTwo.out())
        .startsWith("slower by 4.2 s: imds.fetch, 3 attempts against 1\n")
        .contains("A  boot 1 of 2, ", RescuedDisk.ARCHIVED, "B  boot 2 of 2, ");
    assertThat(chosen.json().path("headline").asText())
        .isEqualTo("faster by 4.2 s: imds.fetch, 1 attempt against 3");
    CliRun past = CliRun.of("diff", "--root", root.toString(), "--boot", "3");
    assertThat(past.exit()).isEqualTo(2);
    assertThat(past.err()).startsWith("kvp diff: --boot 3: there are 2 boots under ");
  }

  @Test
  void aHostExport_isComparedWithAPool_toldApartByItsFirstBytes() throws Exception {
    Path flaky = boot(3, 4400, null, keys(2, "imds")).write(dir.resolve("flaky.kvp"), true);
    StringBuilder export = new StringBuilder();
    for (dev.kvprov.kvp.PoolEntry e :
        dev.kvprov.kvp.RecordCodec.decode(Files.readAllBytes(flaky)).entries()) {
      export.append(dev.kvprov.inspect.pool.HostExportTest.instance(e.key(), e.value(), true));
      export.append('\n');
    }
    Path xml = Files.writeString(dir.resolve("vm-kvp.xml"), export);

    CliRun run = CliRun.of("diff", good().toString(), xml.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out()).startsWith("slower by 4.2 s: imds.fetch, 3 attempts against 1\n");
  }

  @Test
  void wrongArguments_areUsageErrors_andAMissingPool_anIoError() throws Exception {
    CliRun one = CliRun.of("diff", good().toString());
    assertThat(one.exit()).isEqualTo(2);
    assertThat(one.err())
        .isEqualTo(
            "kvp diff: give two pools to compare (A, the earlier, then B), or --root R\n"
                + "see kvp diff --help\n");
    assertThat(CliRun.of("diff", good().toString(), good().toString(), "--boot", "2").exit())
        .isEqualTo(2);

    CliRun missing = CliRun.of("diff", good().toString(), dir.resolve("nope.kvp").toString());
    assertThat(missing.exit()).isEqualTo(3);
    assertThat(missing.err()).contains("nope.kvp: no such file or directory");
  }

  private static JsonNode step(JsonNode diff, String path) {
    for (JsonNode step : diff.path("steps")) {
      if (step.path("path").asText().equals(path)) {
        return step;
      }
    }
    throw new AssertionError("no step " + path + " in " + diff);
  }
}
