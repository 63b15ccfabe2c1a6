package dev.kvprov.debian;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The docs link to each other by file and heading, and headings get renamed: every relative link in
 * README.md and docs/*.md must lead to a file that exists and, into a page, to a heading it has (by
 * GitHub's rule for a heading's anchor), so that a page split or a heading reworded cannot leave a
 * link behind.
 */
class DocLinksTest {
  private static final Path REPOSITORY = Path.of("").toAbsolutePath().getParent();

  /** {@code [text](target)} or {@code ![alt](target)}; the text may run over lines. */
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

  private static final Pattern FENCE = Pattern.compile("(?ms)^\\s*```.*?^\\s*```[^\\n]*$");
  private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");
  private static final Pattern HEADING = Pattern.compile("(?m)^#{1,6}\\s+(.+?)\\s*#*\\s*$");

  /** What GitHub leaves of a heading in its anchor: letters, digits, spaces, '-' and '_'. */
  private static final Pattern NOT_IN_ANCHOR = Pattern.compile("[^\\p{L}\\p{N} _-]");

  @Test
  void everyRelativeLinkLeadsToAFileAndHeadingThatExist() throws IOException {
    List<String> broken = new ArrayList<>();
    int checked = 0;
    for (Path page : pages()) {
      for (String target : links(Files.readString(page, UTF_8))) {
        if (target.contains("://") || target.startsWith("mailto:")) {
          continue;
        }
        checked++;
        problem(page, target).ifPresent(p -> broken.add(REPOSITORY.relativize(page) + ": " + p));
      }
    }
    assertThat(checked).as("relative links found").isGreaterThan(20);
    assertThat(broken).as("links that lead nowhere").isEmpty();
  }

  @Test
  void anchorsFollowGitHubsRule() {
    assertThat(anchors("# Performance\n## `kvp`: where a run's time goes\n## Performance\n"))
        .containsExactlyInAnyOrder("performance", "kvp-where-a-runs-time-goes", "performance-1");
    assertThat(anchors("## 2026-11-27 — `kvp bundle`\n### 4. PROVISIONING_REPORT: reasons\n"))
        .containsExactlyInAnyOrder("2026-11-27--kvp-bundle", "4-provisioning_report-reasons");
    assertThat(anchors("```\n# not a heading\n```\n")).isEmpty();
  }

  @Test
  void linksInCodeAreLeftOut() {
    assertThat(links("see [a](docs/a.md#b) and `[c](d.md)`, ![e](f.png)\n```\n[g](h.md)\n```\n"))
        .containsExactly("docs/a.md#b", "f.png");
  }

  private static List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>(List.of(REPOSITORY.resolve("README.md")));
    try (Stream<Path> docs = Files.list(REPOSITORY.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
    }
    return pages;
  }

  /** The targets of the page's links, code left out. */
  static List<String> links(String markdown) {
    String prose = INLINE_CODE.matcher(FENCE.matcher(markdown).replaceAll("")).replaceAll("");
    List<String> targets = new ArrayList<>();
    Matcher link = LINK.matcher(prose);
    while (link.find()) {
      targets.add(link.group(1));
    }
    return targets;
  }

  /** The anchors GitHub makes of the page's headings, a repeated one numbered. */
  static Set<String> anchors(String markdown) {
    Set<String> anchors = new HashSet<>();
    Map<String, Integer> seen = new HashMap<>();
    Matcher heading = HEADING.matcher(FENCE.matcher(markdown).replaceAll(""));
    while (heading.find()) {
      String anchor =
          NOT_IN_ANCHOR
              .matcher(heading.group(1).toLowerCase(Locale.ROOT))
              .replaceAll("")
              .replace(' ', '-');
      int times = seen.merge(anchor, 1, Integer::sum);
      anchors.add(times == 1 ? anchor : anchor + "-" + (times - 1));
    }
    return anchors;
  }

  private static Optional<String> problem(Path page, String target) throws IOException {
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    Path linked = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
    if (!linked.startsWith(REPOSITORY) || !Files.exists(linked)) {
      return Optional.of(target + ": no such file");
    }
    if (hash < 0 || !linked.toString().endsWith(".md")) {
      return Optional.empty();
    }
    String anchor = target.substring(hash + 1);
    return anchors(Files.readString(linked, UTF_8)).contains(anchor)
        ? Optional.empty()
        : Optional.of(target + ": no such heading");
  }
}
