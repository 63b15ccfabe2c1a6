package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * sd_notify's {@code EXTEND_TIMEOUT_USEC=}, received on a real datagram socket bound as systemd
 * binds {@code $NOTIFY_SOCKET}: a path, or an abstract name.
 */
class ServiceManagerTest {
  @TempDir Path dir;

  @Test
  void aPathSocket_receivesTheExtension_inMicroseconds() {
    String path = dir.resolve("notify").toString();
    List<String> warnings = new ArrayList<>();
    try (NotifySocket systemd = new NotifySocket(path)) {
      new ServiceManager(Optional.of(path), warnings::add)
          .extendStartTimeout(Duration.ofMinutes(4));

      assertThat(systemd.received()).hasValue("EXTEND_TIMEOUT_USEC=240000000");
    }
    assertThat(warnings).isEmpty();
  }

  @Test
  void anAbstractName_isReachedWithoutAPath() {
    String name = "@kvprov-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
    List<String> warnings = new ArrayList<>();
    try (NotifySocket systemd = new NotifySocket(name)) {
      ServiceManager manager = new ServiceManager(Optional.of(name), warnings::add);
      manager.extendStartTimeout(Duration.ofSeconds(90));
      manager.extendStartTimeout(Duration.ofSeconds(91));

      assertThat(systemd.received()).hasValue("EXTEND_TIMEOUT_USEC=90000000");
      assertThat(systemd.received()).hasValue("EXTEND_TIMEOUT_USEC=91000000");
    }
    assertThat(warnings).isEmpty();
  }

  @Test
  void withoutNotifySocket_nothingIsSent_andNothingSaid() {
    List<String> warnings = new ArrayList<>();
    new ServiceManager(Optional.empty(), warnings::add).extendStartTimeout(Duration.ofMinutes(3));
    new ServiceManager(Optional.of(""), warnings::add).extendStartTimeout(Duration.ofMinutes(3));

    assertThat(warnings).isEmpty();
  }

  @Test
  void aSocketNobodyListensOn_isOneWarningInPlainWords_neverAFailure() {
    List<String> warnings = new ArrayList<>();
    ServiceManager manager =
        new ServiceManager(Optional.of(dir.resolve("gone").toString()), warnings::add);

    manager.extendStartTimeout(Duration.ofMinutes(3));
    manager.extendStartTimeout(Duration.ofMinutes(3));

    assertThat(warnings)
        .singleElement()
        .isEqualTo(
            "systemd cannot be told that kvprov is still waiting (No such file or directory):"
                + " its start timeout may end the wait");
  }
}
