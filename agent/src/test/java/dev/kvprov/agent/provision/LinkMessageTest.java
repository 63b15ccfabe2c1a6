package dev.kvprov.agent.provision;

import static dev.kvprov.agent.provision.LinkMessage.IFF_LOWER_UP;
import static dev.kvprov.agent.provision.LinkMessage.IFF_UP;
import static dev.kvprov.agent.provision.LinkMessage.IF_OPER_UNKNOWN;
import static dev.kvprov.agent.provision.LinkMessage.IF_OPER_UP;
import static dev.kvprov.agent.provision.LinkMessage.RTM_DELLINK;
import static dev.kvprov.agent.provision.LinkMessage.RTM_NEWLINK;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.provision.LinkEvents.Link;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Link announcements as the kernel lays them out, built byte by byte (rtnetlink(7)). */
class LinkMessageTest {
  private static final int NLMSG_ERROR = 2;
  private static final int NLMSG_DONE = 3;
  private static final int RTM_NEWADDR = 20;
  private static final int IF_OPER_DOWN = 2;
  private static final int IFLA_MTU = 4;
  private static final int NO_OPERSTATE = -1;

  @Test
  void newLink_operstateUp_isUp() {
    byte[] m = link(RTM_NEWLINK, 7, "eth0", IF_OPER_UP, IFF_UP | IFF_LOWER_UP);

    assertThat(parse(m)).containsExactly(new LinkMessage(new Link("eth0", 7), false, true));
  }

  @Test
  void newLink_operstateDown_isNotUp_evenWithItsFlagsUp() {
    byte[] m = link(RTM_NEWLINK, 7, "eth0", IF_OPER_DOWN, IFF_UP | IFF_LOWER_UP);

    assertThat(parse(m)).containsExactly(new LinkMessage(new Link("eth0", 7), false, false));
  }

  @Test
  void operstateUnknown_orNone_fallsBackOnUpAndCarrier() {
    assertThat(parse(link(RTM_NEWLINK, 3, "d0", IF_OPER_UNKNOWN, IFF_UP | IFF_LOWER_UP)))
        .extracting(LinkMessage::up)
        .containsExactly(true);
    assertThat(parse(link(RTM_NEWLINK, 3, "d0", IF_OPER_UNKNOWN, IFF_UP)))
        .extracting(LinkMessage::up)
        .containsExactly(false);
    assertThat(parse(link(RTM_NEWLINK, 3, "d0", NO_OPERSTATE, IFF_UP | IFF_LOWER_UP)))
        .extracting(LinkMessage::up)
        .containsExactly(true);
    assertThat(parse(link(RTM_NEWLINK, 3, "d0", NO_OPERSTATE, IFF_LOWER_UP)))
        .extracting(LinkMessage::up)
        .containsExactly(false);
  }

  @Test
  void delLink_isDeleted() {
    byte[] m = link(RTM_DELLINK, 2, "eth0", IF_OPER_DOWN, 0);

    assertThat(parse(m)).containsExactly(new LinkMessage(new Link("eth0", 2), true, false));
  }

  @Test
  void severalMessagesInOneDatagram_areReadInOrder_andOthersPassedOver() {
    byte[] datagram =
        concat(
            link(RTM_DELLINK, 2, "eth0", IF_OPER_DOWN, 0),
            message(RTM_NEWADDR, new byte[12]),
            link(RTM_NEWLINK, 5, "eth1", IF_OPER_UP, IFF_UP | IFF_LOWER_UP),
            message(NLMSG_ERROR, new byte[20]),
            message(NLMSG_DONE, new byte[4]));

    assertThat(parse(datagram))
        .containsExactly(
            new LinkMessage(new Link("eth0", 2), true, false),
            new LinkMessage(new Link("eth1", 5), false, true));
  }

  @Test
  void anOddLengthName_isPaddedAndTheNextAttributeStillRead() {
    byte[] m = link(RTM_NEWLINK, 9, "enP1s1", IF_OPER_UP, 0); // 7 bytes with its NUL: padded

    assertThat(parse(m)).containsExactly(new LinkMessage(new Link("enP1s1", 9), false, true));
  }

  @Test
  void aDatagramCutShort_keepsTheWholeMessages_andSkipsTheCutOne() {
    byte[] first = link(RTM_DELLINK, 2, "eth0", IF_OPER_DOWN, 0);
    byte[] second = link(RTM_NEWLINK, 5, "eth1", IF_OPER_UP, 0);
    byte[] datagram = concat(first, second);

    for (int cut = first.length; cut < datagram.length; cut++) {
      assertThat(LinkMessage.parse(datagram, cut))
          .as("cut at %d", cut)
          .containsExactly(new LinkMessage(new Link("eth0", 2), true, false));
    }
    for (int cut = 0; cut < first.length; cut++) {
      assertThat(LinkMessage.parse(datagram, cut)).as("cut at %d", cut).isEmpty();
    }
  }

  @Test
  void lengthsThatCannotBe_areSkipped_neverReadPast() {
    byte[] good = link(RTM_NEWLINK, 5, "eth1", IF_OPER_UP, 0);

    byte[] tooLong = good.clone();
    order(tooLong).putInt(0, good.length + 4096);
    assertThat(parse(tooLong)).isEmpty();

    byte[] tooShort = good.clone();
    order(tooShort).putInt(0, 3); // shorter than its own header
    assertThat(parse(concat(tooShort, good))).isEmpty();

    byte[] noRoomForIfinfo = message(RTM_NEWLINK, new byte[8]);
    assertThat(parse(concat(noRoomForIfinfo, good)))
        .containsExactly(new LinkMessage(new Link("eth1", 5), false, true));

    byte[] badAttribute = good.clone();
    order(badAttribute).putShort(32, (short) 0x7fff); // IFLA_IFNAME's length past the message
    assertThat(parse(badAttribute)).as("a link without a name is no link").isEmpty();

    byte[] zeroAttribute = good.clone();
    order(zeroAttribute).putShort(32, (short) 0); // a zero length would loop for ever
    assertThat(parse(zeroAttribute)).isEmpty();
  }

  @Test
  void garbage_ofEveryLength_neverThrows() {
    java.util.Random random = new java.util.Random(28);
    for (int n = 0; n < 2_000; n++) {
      byte[] bytes = new byte[random.nextInt(200)];
      random.nextBytes(bytes);
      if (bytes.length >= 6 && random.nextBoolean()) { // plausible headers, wild contents
        order(bytes).putInt(0, bytes.length).putShort(4, (short) RTM_NEWLINK);
      }
      assertThat(LinkMessage.parse(bytes, bytes.length)).isNotNull();
    }
  }

  @Test
  void aNameWithoutItsNul_endsWithTheAttribute() {
    byte[] m = link(RTM_NEWLINK, 4, "eth9".getBytes(StandardCharsets.US_ASCII), IF_OPER_UP, 0);

    assertThat(parse(m)).containsExactly(new LinkMessage(new Link("eth9", 4), false, true));
  }

  private static List<LinkMessage> parse(byte[] datagram) {
    return LinkMessage.parse(datagram, datagram.length);
  }

  /**
   * An {@code RTM_NEWLINK} or {@code RTM_DELLINK}: its {@code ifinfomsg}, then {@code IFLA_IFNAME},
   * {@code IFLA_MTU} and, unless {@code operstate} is negative, {@code IFLA_OPERSTATE}.
   */
  static byte[] link(int type, int index, String name, int operstate, int flags) {
    return link(type, index, (name + "\0").getBytes(StandardCharsets.US_ASCII), operstate, flags);
  }

  private static byte[] link(int type, int index, byte[] nameBytes, int operstate, int flags) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    byte[] ifinfo = new byte[16];
    order(ifinfo).put(0, (byte) 0).putShort(2, (short) 1).putInt(4, index).putInt(8, flags);
    body.writeBytes(ifinfo);
    body.writeBytes(attribute(LinkMessage.IFLA_IFNAME, nameBytes));
    byte[] mtu = new byte[4];
    order(mtu).putInt(0, 1500);
    body.writeBytes(attribute(IFLA_MTU, mtu));
    if (operstate >= 0) {
      body.writeBytes(attribute(LinkMessage.IFLA_OPERSTATE, new byte[] {(byte) operstate}));
    }
    return message(type, body.toByteArray());
  }

  /** An attribute, padded to 4 bytes; its length counts the header and data, not the padding. */
  private static byte[] attribute(int type, byte[] data) {
    int length = 4 + data.length;
    byte[] a = new byte[(length + 3) & ~3];
    order(a).putShort(0, (short) length).putShort(2, (short) type);
    System.arraycopy(data, 0, a, 4, data.length);
    return a;
  }

  static byte[] message(int type, byte[] body) {
    int length = 16 + body.length;
    byte[] m = new byte[(length + 3) & ~3];
    order(m).putInt(0, length).putShort(4, (short) type).putInt(8, 0).putInt(12, 0);
    System.arraycopy(body, 0, m, 16, body.length);
    return m;
  }

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream all = new ByteArrayOutputStream();
    Arrays.stream(parts).forEach(all::writeBytes);
    return all.toByteArray();
  }

  private static ByteBuffer order(byte[] bytes) {
    return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
  }
}
