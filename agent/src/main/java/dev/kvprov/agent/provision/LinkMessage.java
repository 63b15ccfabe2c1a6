package dev.kvprov.agent.provision;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * One link announcement of the kernel's routing netlink: {@code RTM_NEWLINK} (a link came, or
 * changed) or {@code RTM_DELLINK} (it went), read from a datagram of {@code nlmsghdr}s, each with
 * its {@code ifinfomsg} and {@code rtattr}s, in the host's byte order (rtnetlink(7)). Every length
 * is checked against what was received: a message cut short or with a length that cannot be is
 * skipped, never read past.
 *
 * @param link the link, by the name and index the message gives
 * @param deleted whether it went ({@code RTM_DELLINK})
 * @param up whether it can carry traffic: operstate {@code up}, or, where the driver keeps no
 *     operstate ({@code unknown}, or none given), administratively up with a carrier ({@code
 *     IFF_UP} and {@code IFF_LOWER_UP}), as the kernel's operstates.rst asks of readers
 */
record LinkMessage(LinkEvents.Link link, boolean deleted, boolean up) {
  static final int NLMSG_HDRLEN = 16; // u32 len, u16 type, u16 flags, u32 seq, u32 pid
  static final int IFINFOMSG_LEN = 16; // u8 family, u8 pad, u16 type, s32 index, u32 flags, change
  static final int RTA_HDRLEN = 4; // u16 len, u16 type

  static final int RTM_NEWLINK = 16;
  static final int RTM_DELLINK = 17;
  static final int IFLA_IFNAME = 3;
  static final int IFLA_OPERSTATE = 16;
  static final int IF_OPER_UNKNOWN = 0;
  static final int IF_OPER_UP = 6;
  static final int IFF_UP = 0x1;
  static final int IFF_LOWER_UP = 0x10000;

  /** The attribute type without its nested and byte-order flags. */
  private static final int NLA_TYPE_MASK = 0x3fff;

  private static final int NO_OPERSTATE = -1;

  /**
   * The link announcements in the first {@code length} bytes of a datagram, in order; anything else
   * there ({@code NLMSG_DONE}, {@code NLMSG_ERROR}, other routing messages) is passed over.
   */
  static List<LinkMessage> parse(byte[] datagram, int length) {
    ByteBuffer in = ByteBuffer.wrap(datagram, 0, Math.min(length, datagram.length)).slice();
    in.order(ByteOrder.nativeOrder());
    List<LinkMessage> found = new ArrayList<>();
    int at = 0;
    while (in.limit() - at >= NLMSG_HDRLEN) {
      long messageLength = Integer.toUnsignedLong(in.getInt(at));
      if (messageLength < NLMSG_HDRLEN || messageLength > in.limit() - at) {
        break; // cut short or garbage: where the next message begins cannot be known
      }
      int end = at + (int) messageLength;
      int type = Short.toUnsignedInt(in.getShort(at + 4));
      if ((type == RTM_NEWLINK || type == RTM_DELLINK)
          && end - at >= NLMSG_HDRLEN + IFINFOMSG_LEN) {
        read(in, at + NLMSG_HDRLEN, end, type == RTM_DELLINK).ifPresent(found::add);
      }
      at += (int) align(messageLength);
    }
    return found;
  }

  /** An {@code ifinfomsg} and its attributes, from {@code at} to {@code end}. */
  private static Optional<LinkMessage> read(ByteBuffer in, int at, int end, boolean deleted) {
    long index = Integer.toUnsignedLong(in.getInt(at + 4));
    int flags = in.getInt(at + 8);
    String name = "";
    int operstate = NO_OPERSTATE;
    int attribute = at + IFINFOMSG_LEN;
    while (end - attribute >= RTA_HDRLEN) {
      int attributeLength = Short.toUnsignedInt(in.getShort(attribute));
      if (attributeLength < RTA_HDRLEN || attributeLength > end - attribute) {
        break;
      }
      int type = Short.toUnsignedInt(in.getShort(attribute + 2)) & NLA_TYPE_MASK;
      int data = attribute + RTA_HDRLEN;
      int dataLength = attributeLength - RTA_HDRLEN;
      if (type == IFLA_IFNAME) {
        name = string(in, data, dataLength);
      } else if (type == IFLA_OPERSTATE && dataLength >= 1) {
        operstate = Byte.toUnsignedInt(in.get(data));
      }
      attribute += (int) align(attributeLength);
    }
    if (name.isEmpty() || index == 0) {
      return Optional.empty(); // the kernel always names a real link
    }
    boolean carrier = (flags & IFF_UP) != 0 && (flags & IFF_LOWER_UP) != 0;
    boolean up =
        operstate == IF_OPER_UP
            || ((operstate == IF_OPER_UNKNOWN || operstate == NO_OPERSTATE) && carrier);
    return Optional.of(new LinkMessage(new LinkEvents.Link(name, index), deleted, up));
  }

  /** A NUL-terminated name, up to its NUL or the attribute's end. */
  private static String string(ByteBuffer in, int at, int length) {
    int n = 0;
    while (n < length && in.get(at + n) != 0) {
      n++;
    }
    byte[] bytes = new byte[n];
    in.get(at, bytes);
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Netlink's 4-byte alignment of messages and attributes. */
  private static long align(long length) {
    return (length + 3) & ~3L;
  }
}
