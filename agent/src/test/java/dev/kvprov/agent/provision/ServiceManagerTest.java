package dev.kvprov.agent.provision;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.sun.jna.Function;
import com.sun.jna.NativeLibrary;
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
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int MSG_DONTWAIT = 0x40;
  private static final NativeLibrary C = NativeLibrary.getInstance("c");

  @TempDir Path dir;

  /** A datagram socket bound to {@code name}, as systemd's notify socket is. */
  private static final class Listener implements AutoCloseable {
    final int fd;

    Listener(String name) {
      fd = fn("socket").invokeInt(new Object[] {AF_UNIX, SOCK_DGRAM, 0});
      byte[] address = ServiceManager.sockaddr(name);
      fn("bind").invokeInt(new Object[] {fd, address, address.length});
    }

    /** The datagram queued, if any (a local datagram is queued when sendto returns). */
    Optional<String> received() {
      byte[] buffer = new byte[4096];
      try {
        long n =
            fn("recv").invokeLong(new Object[] {fd, buffer, (long) buffer.length, MSG_DONTWAIT});
        return Optional.of(new String(buffer, 0, (int) n, UTF_8));
      } catch (com.sun.jna.LastErrorException e) {
        return Optional.empty(); // EAGAIN: nothing came
      }
    }

    @Override
    public void close() {
      fn("close").invokeInt(new Object[] {fd});
    }

    private static Function fn(String name) {
      return C.getFunction(name, Function.THROW_LAST_ERROR);
    }
  }

  @Test
  void aPathSocket_receivesTheExtension_inMicroseconds() {
    String path = dir.resolve("notify").toString();
    List<String> warnings = new ArrayList<>();
    try (Listener systemd = new Listener(path)) {
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
    try (Listener systemd = new Listener(name)) {
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
