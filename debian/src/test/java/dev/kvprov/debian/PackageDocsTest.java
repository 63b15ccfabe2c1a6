package dev.kvprov.debian;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How {@link PackageDocs} turns picocli's AsciiDoc footers into what the man page shows. */
class PackageDocsTest {
  @Test
  void aFootersIndentedLines_becomeALiteralBlock_lessTheirCommonIndentation() {
    String footer =
        String.join(
            "\n",
            "== Notes",
            "",
            "[%hardbreaks]",
            "Exit status: 0 ok; 2 usage",
            "error.",
            "",
            "[%hardbreaks]",
            "Examples:",
            "  kvprov metadata --hostname /run/kvprov/hostname \\",
            "      --attributes /run/metadata/kvprov",
            "Then:",
            "  kvp tree",
            "",
            "// end::picocli-generated-man-section-footer[]",
            "");

    assertThat(PackageDocs.preformattedFooters(footer))
        .isEqualTo(
            String.join(
                "\n",
                "== Notes",
                "",
                "[%hardbreaks]",
                "Exit status: 0 ok; 2 usage",
                "error.",
                "",
                "[%hardbreaks]",
                "Examples:",
                "",
                "....",
                "kvprov metadata --hostname /run/kvprov/hostname \\",
                "    --attributes /run/metadata/kvprov",
                "....",
                "",
                "[%hardbreaks]",
                "Then:",
                "",
                "....",
                "kvp tree",
                "....",
                "",
                "",
                "// end::picocli-generated-man-section-footer[]",
                ""));
  }

  @Test
  void indentedLinesOutsideAFooter_areLeftAlone() {
    String options = "== Options\n\n*--file*=_FILE_::\n  The pool.\n";

    assertThat(PackageDocs.preformattedFooters(options)).isEqualTo(options);
  }
}
