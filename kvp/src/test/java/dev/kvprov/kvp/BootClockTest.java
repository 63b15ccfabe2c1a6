package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BootClockTest {
  @TempDir Path root;

  private void fakeProc(String stat, String uptime, String bootId) throws IOException {
    Files.createDirectories(root.resolve("proc/sys/kernel/random"));
    Files.writeString(root.resolve("proc/stat"), stat);
    Files.writeString(root.resolve("proc/uptime"), uptime);
    Files.writeString(root.resolve("proc/sys/kernel/random/boot_id"), bootId);
  }

  @Test
  void read_takesBtimeUptimeAndBootId_fromTheRoot() throws IOException {
    fakeProc(
        "cpu  1 2 3 4\nintr 5\nctxt 6\nbtime 1795322355\nprocesses 7\n",
        "12.50 20.00\n",
        "3F2504E0-4F89-11D3-9A0C-0305E82C3301\n");

    BootClock clock = BootClock.read(root);

    assertThat(clock.bootTime()).isEqualTo(Instant.ofEpochSecond(1_795_322_355L));
    assertThat(clock.bootId()).isEqualTo("3f2504e0-4f89-11d3-9a0c-0305e82c3301");
    assertThat(clock.sinceBoot()).isBetween(Duration.ofMillis(12_500), Duration.ofSeconds(60));
  }

  @Test
  void sinceBoot_advancesWithTheMonotonicClock_fromTheUptimeReadOnce() throws Exception {
    fakeProc("btime 100\n", "5.0 1.0\n", "3f2504e0-4f89-11d3-9a0c-0305e82c3301");
    BootClock clock = BootClock.read(root);

    Duration first = clock.sinceBoot();
    Files.writeString(root.resolve("proc/uptime"), "1.0 1.0\n"); // read once: no effect now
    Thread.sleep(50);
    Duration second = clock.sinceBoot();

    assertThat(first).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(30));
    assertThat(second.minus(first)).isBetween(Duration.ofMillis(50), Duration.ofSeconds(30));
  }

  @Test
  void read_saysWhichFileIsWrong() throws IOException {
    fakeProc("cpu 1\n", "5.0 1.0\n", "3f2504e0-4f89-11d3-9a0c-0305e82c3301");
    assertThatThrownBy(() -> BootClock.read(root)).hasMessageContaining("has no btime line");

    fakeProc("btime 100\n", "soon\n", "3f2504e0-4f89-11d3-9a0c-0305e82c3301");
    assertThatThrownBy(() -> BootClock.read(root))
        .hasMessageContaining("uptime")
        .hasMessageContaining("soon");

    fakeProc("btime 100\n", "5.0 1.0\n", "not-a-boot-id");
    assertThatThrownBy(() -> BootClock.read(root)).hasMessageContaining("not a boot id");
  }

  @Test
  void system_readsThisMachine() throws IOException {
    BootClock clock = BootClock.system();

    assertThat(clock.bootTime()).isBefore(Instant.now());
    assertThat(clock.bootTime().plus(clock.sinceBoot()))
        .isCloseTo(
            Instant.now(),
            org.assertj.core.api.Assertions.within(5, java.time.temporal.ChronoUnit.SECONDS));
  }
}
