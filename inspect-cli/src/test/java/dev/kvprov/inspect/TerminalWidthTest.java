package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * At 80 columns in a terminal, {@code tree}, {@code timeline} and {@code report} wrap one way: no
 * line wider than the terminal, continuation lines under the text they continue, nothing cut.
 */
class TerminalWidthTest {
  private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
  private static final String WARNING =
      "IMDS gave no usable answer (no usable answer from IMDS after 7 attempt(s) in 8.1 s (budget"
          + " 8 s); last: IMDS answered HTTP 503): provisioning from the provisioning media alone";
  private static final String FAILURE =
      "no usable answer from IMDS after 7 attempt(s) in 8.1 s (budget 8 s); last: IMDS answered"
          + " HTTP 503";
  private static final String REASON =
      "Failed to fetch instance metadata and no provisioning media was found on any CD-ROM or"
          + " disk of this VM";

  @TempDir Path dir;
  private Path pool;

  @BeforeEach
  void aBootThatWarnedFailedAndSaidWhy() throws Exception {
    pool = dir.resolve("pool.kvp");
    PoolFile.builder()
        .file(pool)
        .build()
        .append(
            List.of(
                span(
                    1,
                    0,
                    "provision",
                    "40.000",
                    "49.562",
                    "unset | Attr: kvprov.warning=" + WARNING),
                span(2, 1, "imds.fetch", "40.032", "48.087", "error | Error: " + FAILURE),
                new KvpRecord(
                    "PROVISIONING_REPORT",
                    "result=error|reason="
                        + REASON
                        + "|agent=kvprov/0.1.0|vm_id=a1b2c3d4-1111-4222-8333-444455556666"
                        + "|timestamp=2026-11-22T04:47:49.600Z")));
  }

  private static KvpRecord span(
      int id, int parent, String name, String start, String end, String status) {
    String span = String.format("%016x", id);
    return new KvpRecord(
        "kvprov-1|vm|INFO|end|" + name + "|" + span,
        "Start: 2026-11-22T04:47:"
            + start
            + "Z | End: 2026-11-22T04:47:"
            + end
            + "Z | Trace: "
            + TRACE
            + " | Span: "
            + span
            + (parent == 0 ? "" : " | Parent: " + String.format("%016x", parent))
            + " | Name: "
            + name
            + " | Status: "
            + status);
  }

  @Test
  void tree_wrapsTheWarningAndTheFailureUnderTheName() throws Exception {
    List<String> lines = AtTerminal.run(80, "", "tree", "--file", pool.toString()).lines();

    assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(80));
    assertThat(lines.get(0)).contains("provision  [kvprov] warning: IMDS gave no usable answer");
    int name = lines.get(0).indexOf("provision");
    assertThat(words(lines, 0, name)).contains("warning: " + WARNING);
    int child =
        lines.stream()
            .filter(l -> l.contains("imds.fetch"))
            .findFirst()
            .map(lines::indexOf)
            .orElseThrow();
    assertThat(words(lines, child, lines.get(child).indexOf("imds.fetch")))
        .contains("FAILED: " + FAILURE);
  }

  @Test
  void timeline_keepsTheReportsReason_wrappedUnderTheName() throws Exception {
    List<String> lines = AtTerminal.run(80, "", "timeline", "--file", pool.toString()).lines();

    assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(80));
    assertThat(String.join("\n", lines)).doesNotContain("…");
    int report =
        lines.stream()
            .filter(l -> l.contains("PROVISIONING_REPORT"))
            .findFirst()
            .map(lines::indexOf)
            .orElseThrow();
    assertThat(words(lines, report, lines.get(report).indexOf("PROVISIONING_REPORT")))
        .contains(REASON);
  }

  @Test
  void report_wrapsAReasonUnderItsValue_notBackToColumnZero() throws Exception {
    AtTerminal.Shown shown = AtTerminal.run(80, "", "report", "--file", pool.toString());

    assertThat(shown.exit()).as(shown.text()).isEqualTo(1);
    List<String> lines = shown.lines();
    assertThat(lines).allSatisfy(l -> assertThat(l.length()).as(l).isLessThanOrEqualTo(80));
    int reason =
        lines.stream()
            .filter(l -> l.startsWith("reason"))
            .findFirst()
            .map(lines::indexOf)
            .orElseThrow();
    int value = lines.get(reason).indexOf("Failed");
    assertThat(words(lines, reason, value)).isEqualTo(REASON);
  }

  /**
   * The text of the line {@code first} from {@code column} on, and of the lines that continue it
   * (those blank up to {@code column}), joined with spaces.
   */
  private static String words(List<String> lines, int first, int column) {
    StringBuilder text = new StringBuilder(lines.get(first).substring(column));
    for (int i = first + 1; i < lines.size(); i++) {
      String line = lines.get(i);
      if (line.length() <= column
          || !line.substring(0, column).isBlank()
          || line.charAt(column) == ' ') {
        break;
      }
      text.append(' ').append(line.substring(column));
    }
    return text.toString();
  }
}
