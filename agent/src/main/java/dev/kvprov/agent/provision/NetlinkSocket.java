package dev.kvprov.agent.provision;

import com.sun.jna.Function;
import com.sun.jna.LastErrorException;
import com.sun.jna.NativeLibrary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;

/**
 * A routing netlink socket subscribed to the kernel's link announcements ({@code RTMGRP_LINK}): the
 * calls {@code socket}, {@code bind}, {@code poll}, {@code recvfrom} and {@code close}, bound once
 * as JNA {@link Function}s as kvp's {@code LibC} binds {@code flock}, and only when a Savable VM
 * first watches its NICs: a boot that is not one loads none of this.
 *
 * <p>The constants are Linux's generic ones, and {@code size_t}/{@code ssize_t} are taken as 64
 * bits: the architectures kvprov is built for (x86_64, aarch64, riscv64, s390x, ppc64le) are all
 * LP64.
 */
final class NetlinkSocket implements AutoCloseable {
  /** The socket cannot be had here: no netlink (not Linux), or a sandbox refused it. */
  static final class Unavailable extends IOException {
    private static final long serialVersionUID = 1L;

    Unavailable(String message) {
      super(message);
    }
  }

  /** The kernel dropped announcements because they were not read in time ({@code ENOBUFS}). */
  static final class Overrun extends IOException {
    private static final long serialVersionUID = 1L;

    Overrun() {
      super("netlink announcements were lost (the socket's buffer overran)");
    }
  }

  private static final int AF_NETLINK = 16;
  private static final int SOCK_RAW = 3;
  private static final int SOCK_CLOEXEC = 0x80000; // the commands kvprov runs do not inherit it
  private static final int NETLINK_ROUTE = 0;
  private static final int RTMGRP_LINK = 1;
  private static final short POLLIN = 1;
  private static final int MSG_DONTWAIT = 0x40;
  private static final int SOCKADDR_NL = 12; // family u16, pad u16, pid u32, groups u32

  private static final int EINTR = 4;
  private static final int EAGAIN = 11;
  private static final int ENOBUFS = 105;

  private static final String PLATFORM_LIBRARY_PATH = "jna.platform.library.path";

  private static final Function SOCKET;
  private static final Function BIND;
  private static final Function POLL;
  private static final Function RECVFROM;
  private static final Function CLOSE;
  private static final String UNAVAILABLE_REASON;

  static {
    Function socket = null;
    Function bind = null;
    Function poll = null;
    Function recvfrom = null;
    Function close = null;
    String reason = null;
    // As kvp's LibC: the C library is the running process's, so JNA need not run `ldconfig -p` to
    // learn the system's library directories.
    if (System.getProperty(PLATFORM_LIBRARY_PATH) == null) {
      System.setProperty(PLATFORM_LIBRARY_PATH, "");
    }
    try {
      NativeLibrary c = NativeLibrary.getInstance("c");
      socket = c.getFunction("socket", Function.THROW_LAST_ERROR);
      bind = c.getFunction("bind", Function.THROW_LAST_ERROR);
      poll = c.getFunction("poll", Function.THROW_LAST_ERROR);
      recvfrom = c.getFunction("recvfrom", Function.THROW_LAST_ERROR);
      close = c.getFunction("close", Function.THROW_LAST_ERROR);
    } catch (LinkageError | RuntimeException e) {
      // JNA's own words name its jar's resource path and classes: not for a warning line
      reason = "native calls are not available here";
    }
    SOCKET = socket;
    BIND = bind;
    POLL = poll;
    RECVFROM = recvfrom;
    CLOSE = close;
    UNAVAILABLE_REASON = reason;
  }

  private final int fd;
  private boolean closed;

  private NetlinkSocket(int fd) {
    this.fd = fd;
  }

  /**
   * Opens and binds the socket: from here on no link announcement is missed (short of an overrun).
   *
   * @throws Unavailable when there is no netlink to open
   */
  static NetlinkSocket open() throws Unavailable {
    if (UNAVAILABLE_REASON != null) {
      throw new Unavailable(UNAVAILABLE_REASON);
    }
    int fd;
    try {
      fd = SOCKET.invokeInt(new Object[] {AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE});
    } catch (LastErrorException e) {
      throw new Unavailable(reason(e));
    }
    byte[] address = new byte[SOCKADDR_NL];
    ByteBuffer.wrap(address)
        .order(ByteOrder.nativeOrder())
        .putShort((short) AF_NETLINK)
        .putShort((short) 0)
        .putInt(0) // the kernel picks this socket's port id
        .putInt(RTMGRP_LINK);
    try {
      BIND.invokeInt(new Object[] {fd, address, SOCKADDR_NL});
    } catch (LastErrorException e) {
      closeQuietly(fd);
      throw new Unavailable(reason(e));
    }
    return new NetlinkSocket(fd);
  }

  /**
   * Waits at most {@code within} for one datagram from the kernel and copies it into {@code
   * buffer}; a datagram longer than the buffer comes cut short (the parser skips what is cut). A
   * zero {@code within} takes what is there, without waiting.
   *
   * @return its length; 0 when none came in time
   * @throws Overrun when announcements were dropped: the caller reads the links afresh
   */
  int receive(byte[] buffer, Duration within) throws IOException {
    long deadline = System.nanoTime() + within.toNanos();
    byte[] pollfd = new byte[8]; // int fd, short events, short revents
    ByteBuffer.wrap(pollfd).order(ByteOrder.nativeOrder()).putInt(fd).putShort(POLLIN);
    while (true) {
      long left = deadline - System.nanoTime();
      // rounded up: a wait of 0.4 ms is one of 1 ms, not a busy loop of zero-length polls; none
      // left is one look at what is there
      int millis = (int) Math.min(Integer.MAX_VALUE, Math.max(0, (left + 999_999) / 1_000_000));
      int ready;
      try {
        ready = POLL.invokeInt(new Object[] {pollfd, 1L, millis});
      } catch (LastErrorException e) {
        if (e.getErrorCode() == EINTR) {
          continue;
        }
        throw new IOException("poll on netlink failed: " + reason(e), e);
      }
      if (ready == 0) {
        if (deadline - System.nanoTime() <= 0) {
          return 0;
        }
        continue; // woken early: the deadline decides, by monotonic time
      }
      byte[] from = new byte[SOCKADDR_NL];
      int[] fromLength = {SOCKADDR_NL};
      long length;
      try {
        length =
            RECVFROM.invokeLong(
                new Object[] {fd, buffer, (long) buffer.length, MSG_DONTWAIT, from, fromLength});
      } catch (LastErrorException e) {
        switch (e.getErrorCode()) {
          case EINTR, EAGAIN -> {
            continue;
          }
          case ENOBUFS -> throw new Overrun();
          default -> throw new IOException("reading netlink failed: " + reason(e), e);
        }
      }
      // Only the kernel (port id 0) speaks for the links; anything else is not listened to.
      if (ByteBuffer.wrap(from).order(ByteOrder.nativeOrder()).getInt(4) != 0) {
        continue;
      }
      return (int) Math.min(length, buffer.length);
    }
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      closeQuietly(fd);
    }
  }

  private static void closeQuietly(int fd) {
    try {
      CLOSE.invokeInt(new Object[] {fd});
    } catch (LastErrorException e) {
      // nothing to be done: the descriptor is released whatever close says
    }
  }

  /** errno's words, without JNA's "[errno]" prefix. */
  static String reason(LastErrorException e) {
    String message = e.getMessage() == null ? "" : e.getMessage();
    String words = message.replaceFirst("^\\[\\d+\\]\\s*", "");
    return words.isEmpty() ? "error " + e.getErrorCode() : words;
  }
}
