package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.RawPool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The damage kinds {@code KvpCommandTest} does not already make, each at its record and offset. */
class DoctorDamageTest {
  @TempDir Path dir;

  private static List<String> findings(CliRun run) {
    List<String> kinds = new ArrayList<>();
    for (JsonNode p : run.json().path("problems")) {
      kinds.add(
          p.path("kind").asText()
              + "@"
              + p.path("record").asInt()
              + ":"
              + p.path("offset").asLong());
    }
    return kinds;
  }

  @Test
  void slotsNoWriterShouldLeave_areEachNamed() throws Exception {
    byte[] fullKey = new byte[512];
    Arrays.fill(fullKey, (byte) 'k');
    byte[] fullValue = new byte[2048];
    Arrays.fill(fullValue, (byte) 'v');
    byte[] badKey = {'a', (byte) 0xC3, 'b'};
    Path file = dir.resolve("damaged.kvp");
    Files.write(
        file,
        new RawPool()
            .add("fine", "ok")
            .add(fullKey, "v".getBytes(UTF_8))
            .add("no-nul-in-value".getBytes(UTF_8), fullValue)
            .add(badKey, "v".getBytes(UTF_8))
            .add(new byte[0], new byte[0])
            .bytes());

    CliRun run = CliRun.of("doctor", "--json", "--file", file.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(findings(run))
        .containsExactlyInAnyOrder(
            "key_not_terminated@1:2560",
            "key_cut_by_host@1:2560",
            "value_not_terminated@2:5632",
            "value_cut_by_host@2:5632",
            "key_invalid_utf8@3:7681",
            "empty_key@4:10240");
  }

  @Test
  void tooManyRecords_isOneFindingForTheFile() throws Exception {
    RawPool pool = new RawPool();
    for (int i = 0; i <= DoctorCommand.TOO_MANY_RECORDS; i++) {
      pool.add("key-" + i, "value");
    }
    Path file = dir.resolve("big.kvp");
    Files.write(file, pool.bytes());

    CliRun run = CliRun.of("doctor", "--json", "--file", file.toString());

    assertThat(findings(run)).containsExactly("too_many_records@-1:-1");
    assertThat(run.json().path("records").asInt()).isEqualTo(1025);
  }

  @Test
  void aLivePoolWrittenBeforeThisBoot_isStale_aCopyIsNot() throws Exception {
    Path live = dir.resolve(".kvp_pool_1");
    Files.write(live, new RawPool().add("from", "the last boot").bytes());
    Files.setLastModifiedTime(live, FileTime.from(Instant.parse("2026-11-20T08:00:00Z")));

    CliRun stale =
        CliRun.of(
            "doctor", "--json", "--dir", dir.toString(), "--boot-time", "2026-11-22T05:00:00Z");
    CliRun fresh =
        CliRun.of(
            "doctor", "--json", "--dir", dir.toString(), "--boot-time", "2026-11-19T05:00:00Z");

    assertThat(findings(stale)).containsExactly("stale@-1:-1");
    assertThat(stale.json().path("problems").get(0).path("message").asText())
        .contains("2026-11-20T08:00:00Z", "before this boot (2026-11-22T05:00:00Z)");
    assertThat(findings(fresh)).isEmpty();
    Path copy = Files.copy(live, dir.resolve("copy.kvp"));
    Files.setLastModifiedTime(copy, FileTime.from(Instant.parse("2026-11-20T08:00:00Z")));
    assertThat(
            findings(
                CliRun.of(
                    "doctor", "--json", "--file", copy.toString(), "--boot-time", "1795330000")))
        .as("an archived copy is old by nature")
        .isEmpty();
  }

  @Test
  void aBadBootTime_isAUsageError() {
    CliRun run = CliRun.of("doctor", "--boot-time", "yesterday");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("not a time: yesterday");
  }
}
