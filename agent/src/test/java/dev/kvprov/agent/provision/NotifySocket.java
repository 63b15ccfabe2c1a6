package dev.kvprov.agent.provision;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLibrary;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** A datagram socket bound to a name, as systemd binds the one {@code $NOTIFY_SOCKET} names. */
public final class NotifySocket implements AutoCloseable {
  private static final int AF_UNIX = 1;
  private static final int SOCK_DGRAM = 2;
  private static final int MSG_DONTWAIT = 0x40;
  private static final NativeLibrary C = NativeLibrary.getInstance("c");

  private final int fd;

  /** Binds {@code name}: a path, or an abstract name starting with {@code @}. */
  public NotifySocket(String name) {
    fd = fn("socket").invokeInt(new Object[] {AF_UNIX, SOCK_DGRAM, 0});
    byte[] address = ServiceManager.sockaddr(name);
    fn("bind").invokeInt(new Object[] {fd, address, address.length});
  }

  /** The next datagram queued, if any (a local datagram is queued when its sendto returns). */
  public Optional<String> received() {
    byte[] buffer = new byte[4096];
    try {
      long n = fn("recv").invokeLong(new Object[] {fd, buffer, (long) buffer.length, MSG_DONTWAIT});
      return Optional.of(new String(buffer, 0, (int) n, UTF_8));
    } catch (LastErrorException e) {
      return Optional.empty(); // EAGAIN: nothing came
    }
  }

  /** Every datagram queued, in order. */
  public List<String> all() {
    List<String> all = new ArrayList<>();
    for (Optional<String> next = received(); next.isPresent(); next = received()) {
      all.add(next.get());
    }
    return all;
  }

  @Override
  public void close() {
    fn("close").invokeInt(new Object[] {fd});
  }

  private static Function fn(String name) {
    return C.getFunction(name, Function.THROW_LAST_ERROR);
  }
}
