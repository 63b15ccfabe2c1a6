package dev.kvprov.agent.provision;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLibrary;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * systemd, told that a long wait is a wait and not a hang: {@code EXTEND_TIMEOUT_USEC=} on the
 * datagram socket {@code $NOTIFY_SOCKET} names (sd_notify's protocol), which pushes the unit's
 * start timeout ({@code TimeoutStartSec=}) to at least that long from now. systemd honours it for
 * any service type when the unit lets the main process notify ({@code NotifyAccess=main}, which
 * kvprov.service sets). Each message extends by a step, and kvprov sends one while it still waits,
 * so a run that hangs is still ended by the timeout. Without {@code $NOTIFY_SOCKET} (not under
 * systemd) nothing is sent; a message that cannot be sent is one warning, never a failure.
 */
final class ServiceManager {
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int SOCK_CLOEXEC = 0x80000;
  private static final int MSG_NOSIGNAL = 0x4000;
  private static final int SUN_PATH = 108; // sockaddr_un: family u16, then the path

  private static final Function SOCKET;
  private static final Function SENDTO;
  private static final Function CLOSE;

  static {
    Function socket = null;
    Function sendto = null;
    Function close = null;
    if (System.getProperty("jna.platform.library.path") == null) {
      System.setProperty("jna.platform.library.path", ""); // as NetlinkSocket: no ldconfig -p
    }
    try {
      NativeLibrary c = NativeLibrary.getInstance("c");
      socket = c.getFunction("socket", Function.THROW_LAST_ERROR);
      sendto = c.getFunction("sendto", Function.THROW_LAST_ERROR);
      close = c.getFunction("close", Function.THROW_LAST_ERROR);
    } catch (LinkageError | RuntimeException e) {
      // told when a message is to be sent: no native calls here
    }
    SOCKET = socket;
    SENDTO = sendto;
    CLOSE = close;
  }

  private final Optional<byte[]> address;
  private final Consumer<String> warn;
  private boolean warned;

  /**
   * @param notifySocket {@code $NOTIFY_SOCKET}: a path, or an abstract name starting with {@code @}
   * @param warn told once, the first time a message cannot be sent
   */
  ServiceManager(Optional<String> notifySocket, Consumer<String> warn) {
    this.address = notifySocket.filter(s -> !s.isEmpty()).map(ServiceManager::sockaddr);
    this.warn = warn;
  }

  /** The service manager this process runs under, if any. */
  static ServiceManager fromEnvironment(Consumer<String> warn) {
    return new ServiceManager(Optional.ofNullable(System.getenv("NOTIFY_SOCKET")), warn);
  }

  /** Asks for the start timeout to end no sooner than {@code atLeast} from now. */
  void extendStartTimeout(Duration atLeast) {
    notify("EXTEND_TIMEOUT_USEC=" + atLeast.toNanos() / 1000);
  }

  private void notify(String message) {
    if (address.isEmpty()) {
      return;
    }
    byte[] to = address.get();
    if (to.length == 0) {
      failed("$NOTIFY_SOCKET is not a socket path or an abstract name");
      return;
    }
    if (SOCKET == null) {
      failed("native calls are not available here");
      return;
    }
    int fd;
    try {
      fd = SOCKET.invokeInt(new Object[] {AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0});
    } catch (LastErrorException e) {
      failed(NetlinkSocket.reason(e));
      return;
    }
    try {
      byte[] bytes = message.getBytes(UTF_8);
      SENDTO.invokeLong(new Object[] {fd, bytes, (long) bytes.length, MSG_NOSIGNAL, to, to.length});
    } catch (LastErrorException e) {
      failed(NetlinkSocket.reason(e));
    } finally {
      try {
        CLOSE.invokeInt(new Object[] {fd});
      } catch (LastErrorException e) {
        // released whatever close says
      }
    }
  }

  private void failed(String reason) {
    if (!warned) {
      warned = true;
      warn.accept(
          "systemd cannot be told that kvprov is still waiting ("
              + reason
              + "): its start timeout may end the wait");
    }
  }

  /**
   * The {@code sockaddr_un} for {@code name}, as long as it needs to be: a path ends with its NUL,
   * an abstract name ({@code @…}, a NUL first on the wire) has none. Empty when {@code name} is
   * neither or too long.
   */
  static byte[] sockaddr(String name) {
    boolean abstractName = name.startsWith("@");
    if (!abstractName && !name.startsWith("/")) {
      return new byte[0]; // e.g. systemd's vsock: addresses, which kvprov does not speak
    }
    byte[] path = name.getBytes(UTF_8);
    int length = abstractName ? path.length : path.length + 1;
    if (length > SUN_PATH) {
      return new byte[0];
    }
    ByteBuffer address = ByteBuffer.allocate(2 + length).order(ByteOrder.nativeOrder());
    address.putShort((short) AF_UNIX);
    address.put(path);
    if (abstractName) {
      address.put(2, (byte) 0);
    }
    return address.array(); // the path's NUL: the buffer's last byte, zero already
  }
}
