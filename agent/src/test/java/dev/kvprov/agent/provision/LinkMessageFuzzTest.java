package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Netlink datagrams of any bytes, by a coverage-guided fuzzer: link announcements with a name and
 * an index, or none, never an exception. {@code ./mvnw verify} replays the committed seeds ({@code
 * LinkMessageFuzzTestInputs}: a swap's RTM_DELLINK and RTM_NEWLINK in one datagram); {@code
 * .ci/run} fuzzes for a bounded time.
 */
class LinkMessageFuzzTest {
  @FuzzTest(maxDuration = "60s")
  void parse_ofAnyBytes_givesNamedLinksOrNone(byte[] datagram) {
    for (LinkMessage message : LinkMessage.parse(datagram, datagram.length)) {
      assertThat(message.link().name()).isNotEmpty();
      assertThat(message.link().index()).isPositive();
    }
  }
}
