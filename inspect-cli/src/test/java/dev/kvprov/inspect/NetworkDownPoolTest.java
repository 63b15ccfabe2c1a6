package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.ProvisioningReport;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A pool the agent wrote for a boot whose network was down (made by {@code bin/kvprov demo
 * --scenario network-down}, then copied from its {@code root/var/lib/hyperv/.kvp_pool_1}): {@code
 * kvp report} shows the failure report's {@code network} snapshot one part to a line at a terminal,
 * whole on one line into a pipe; {@code kvp tree} shows the span's summary after {@code ok}.
 */
class NetworkDownPoolTest {
  static final Path POOL = GoldenOutputTest.DEMO.resolve("demo-network-down.kvp");

  /** The report's network field, as the agent wrote it. */
  private static String network() throws Exception {
    List<KvpRecord> reports =
        PoolFile.builder().file(POOL).build().read().records().stream()
            .filter(r -> r.key().equals("PROVISIONING_REPORT"))
            .toList();
    assertThat(reports).hasSize(1);
    return ProvisioningReport.parse(reports.get(0).value()).get("network").orElseThrow();
  }

  @Test
  void report_atATerminal_showsEachPartOfTheSnapshotOnALineOfItsOwn() throws Exception {
    String network = network();
    assertThat(network).startsWith("links eth0 down 00:0d:3a:5e:21:07; addresses none;");

    AtTerminal.Shown shown = AtTerminal.run(80, "", "report", "--file", POOL.toString());

    assertThat(shown.exit()).as(shown.text()).isEqualTo(1);
    List<String> lines = shown.lines();
    assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(80));
    int first =
        lines.indexOf(
            lines.stream().filter(l -> l.startsWith("network ")).findFirst().orElseThrow());
    int column = lines.get(first).indexOf("links");
    int end = first;
    while (!lines.get(end).startsWith("pps_type")) {
      end++;
    }
    List<String> snapshot =
        lines.subList(first, end).stream().map(l -> l.substring(column)).toList();
    // a part starts at the value's column; a longer one goes on under the text after its name
    assertThat(snapshot.stream().filter(l -> !l.startsWith(" ")))
        .extracting(l -> l.replaceFirst(" .*", ""))
        .containsExactly("links", "addresses", "route", "dns", "lease", "imds", "wireserver");
    assertThat(snapshot).contains("route none", "lease 168.63.129.16, 3 d old");
    int imds =
        snapshot.indexOf(
            snapshot.stream().filter(l -> l.startsWith("imds ")).findFirst().orElseThrow());
    assertThat(snapshot.get(imds + 1))
        .startsWith(" ".repeat("imds ".length()))
        .doesNotStartWith(" ".repeat(6));
    StringBuilder shownAgain = new StringBuilder();
    for (String text : snapshot) {
      shownAgain
          .append(shownAgain.length() == 0 ? "" : text.startsWith(" ") ? " " : "; ")
          .append(text.strip());
    }
    assertThat(shownAgain.toString()).isEqualTo(network);
  }

  @Test
  void report_intoAPipe_keepsTheSnapshotOnOneLine() throws Exception {
    CliRun report = CliRun.of("report", "--file", POOL.toString());

    assertThat(report.exit()).isEqualTo(1);
    assertThat(report.out()).contains("\nnetwork            " + network() + "\n");
  }

  @Test
  void tree_showsTheSnapshotSpansSummary() throws Exception {
    CliRun tree = CliRun.of("tree", "--file", POOL.toString());

    assertThat(tree.out()).contains("network.snapshot  [kvprov] ok: " + network() + "\n");
  }
}
