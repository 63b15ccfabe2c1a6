package dev.kvprov.debian;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import org.asciidoctor.Asciidoctor;
import org.asciidoctor.Attributes;
import org.asciidoctor.Options;
import org.asciidoctor.SafeMode;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Writes what the package says about its commands, made from the commands' own picocli models at
 * build time so that it cannot drift from them: a man page for {@code kvprov}, {@code kvp} and each
 * of their subcommands (picocli's {@link ManPageGenerator} writes AsciiDoc, Asciidoctor's manpage
 * backend turns it into troff), their bash completion (picocli's {@link AutoComplete}), and the
 * Debian changelog with the package's version.
 *
 * <p>Usage: {@code PackageDocs OUT VERSION CHANGELOG}: writes {@code OUT/man/*.1.gz}, {@code
 * OUT/completions/{kvprov,kvp}} and {@code OUT/doc/changelog.gz}.
 */
final class PackageDocs {
  /**
   * A command: its name and the class whose package-private {@code commandLine(String[])} builds
   * it.
   */
  private record Tool(String name, String root) {}

  private static final List<Tool> TOOLS =
      List.of(
          new Tool("kvprov", "dev.kvprov.agent.KvprovCommand"),
          new Tool("kvp", "dev.kvprov.inspect.cli.KvpCommand"));

  private PackageDocs() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    // the package's version as jdeb spells a Maven snapshot's (a "-" would read as a Debian
    // revision, and "~" sorts a snapshot before its release)
    String version = args[1].replace("-SNAPSHOT", "~SNAPSHOT");
    Path changelog = Path.of(args[2]);
    Path adoc = out.resolve("adoc");
    Path man = out.resolve("man");
    Path completions = out.resolve("completions");
    // made anew: a page of a command since removed must not stay behind to be packaged
    if (Files.isDirectory(out)) {
      try (Stream<Path> stale = Files.walk(out)) {
        for (Path path : stale.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
    for (Path dir : List.of(adoc, man, completions, out.resolve("doc"))) {
      Files.createDirectories(dir);
    }
    String log = Files.readString(changelog).replace("[[version]]", version);
    Files.write(out.resolve("doc/changelog.gz"), gzip(log.getBytes(UTF_8)));
    for (Tool tool : TOOLS) {
      CommandLine cli = wholeTree(tool);
      headFooters(cli);
      if (ManPageGenerator.generateManPage(
              adoc.toFile(), null, new boolean[0], true, cli.getCommandSpec())
          != CommandLine.ExitCode.OK) {
        throw new IllegalStateException("picocli could not write the man pages of " + tool.name());
      }
      // bash-completion sources the script, never runs it: without picocli's "#!" line
      String completion = AutoComplete.bash(tool.name(), cli).replaceFirst("\\A#![^\n]*\n", "");
      Files.writeString(completions.resolve(tool.name()), completion);
    }
    try (Asciidoctor asciidoctor = Asciidoctor.Factory.create();
        Stream<Path> pages = Files.list(adoc)) {
      for (Path page : pages.sorted().toList()) {
        String name = page.getFileName().toString().replaceFirst("\\.adoc$", ".1");
        String troff =
            asciidoctor.convert(
                preformattedFooters(Files.readString(page)),
                Options.builder()
                    .backend("manpage")
                    .safe(SafeMode.SAFE)
                    .standalone(true)
                    .attributes(
                        Attributes.builder()
                            // one manual for both commands and all their subcommands (picocli
                            // names a subcommand's source only when it has a version); dated by
                            // the release, not the build
                            .attribute("manmanual", "kvprov manual")
                            .attribute("mansource", "kvprov " + version)
                            .attribute("docdate", releaseDate(log))
                            .build())
                    .build());
        Files.write(man.resolve(name + ".gz"), gzip(troff.getBytes(UTF_8)));
      }
    }
  }

  /**
   * Keeps the footers' indented lines (examples, and what continues them) as {@code --help} shows
   * them: picocli writes a footer as a {@code [%hardbreaks]} paragraph, which troff fills, so that
   * an example longer than the terminal wraps into the next and its indentation is lost. Each run
   * of indented lines there becomes a literal block (troff's {@code .nf}/{@code .fi}, indented by
   * the page itself, so less their common indentation); the lines around it stay paragraphs.
   */
  static String preformattedFooters(String adoc) {
    StringBuilder out = new StringBuilder();
    List<String> block = new ArrayList<>();
    boolean hardbreaks = false;
    for (String line : adoc.split("\n", -1)) {
      if (hardbreaks && !line.isBlank() && Character.isWhitespace(line.charAt(0))) {
        block.add(line);
        continue;
      }
      if (!block.isEmpty()) {
        literal(block, out);
        if (!line.isBlank()) {
          out.append("[%hardbreaks]\n");
        }
      }
      if (line.equals("[%hardbreaks]")) {
        hardbreaks = true;
      } else if (line.isBlank()) {
        hardbreaks = false;
      }
      out.append(line).append('\n');
    }
    literal(block, out);
    return out.substring(0, out.length() - 1);
  }

  /** Writes the lines as a literal block, less their common indentation, and empties the list. */
  private static void literal(List<String> lines, StringBuilder out) {
    if (lines.isEmpty()) {
      return;
    }
    int indent =
        lines.stream().mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    out.append("\n....\n");
    lines.forEach(l -> out.append(l.substring(indent)).append('\n'));
    out.append("....\n\n");
    lines.clear();
  }

  /** The date of the changelog's latest entry, as yyyy-mm-dd. */
  static String releaseDate(String changelog) {
    String trailer =
        changelog
            .lines()
            .filter(line -> line.startsWith(" -- "))
            .findFirst()
            .orElseThrow(() -> new IllegalArgumentException("the changelog has no entry"));
    return ZonedDateTime.parse(
            trailer.substring(trailer.indexOf(">  ") + 3), DateTimeFormatter.RFC_1123_DATE_TIME)
        .toLocalDate()
        .toString();
  }

  /**
   * Gives each footer a heading: the footers hold the exit statuses, the examples and notes, which
   * {@code --help} prints under the options, and picocli's man page leaves out a footer without
   * one.
   */
  private static void headFooters(CommandLine cli) {
    CommandLine.Model.UsageMessageSpec usage = cli.getCommandSpec().usageMessage();
    if (usage.footer().length > 0 && usage.footerHeading().isEmpty()) {
      usage.footerHeading("Notes");
    }
    cli.getSubcommands().values().forEach(PackageDocs::headFooters);
  }

  /**
   * The tree {@code --help} of the root shows, every subcommand in it: the commands build only the
   * subcommand a run names, and the method that does so is the commands' own, package-private.
   */
  private static CommandLine wholeTree(Tool tool) throws ReflectiveOperationException {
    Method build = Class.forName(tool.root()).getDeclaredMethod("commandLine", String[].class);
    build.setAccessible(true);
    return (CommandLine) build.invoke(null, (Object) new String[0]);
  }

  /**
   * gzip as Debian wants it ({@code gzip -9n}): best compression, no name and no time stamp, so
   * that the same input makes the same package. Not {@code GZIPOutputStream}: its header says
   * neither the compression level nor the system, and lintian takes a page without "maximum
   * compression" in its header for a poorly compressed one ({@code
   * poor-compression-in-manual-page}).
   */
  static byte[] gzip(byte[] data) {
    Deflater deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
    deflater.setInput(data);
    deflater.finish();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    // magic, deflate, no flags, time 0, "maximum compression", Unix
    out.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 2, 3});
    byte[] buffer = new byte[8192];
    while (!deflater.finished()) {
      out.write(buffer, 0, deflater.deflate(buffer));
    }
    deflater.end();
    CRC32 crc = new CRC32();
    crc.update(data);
    ByteBuffer trailer = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
    trailer.putInt((int) crc.getValue()).putInt(data.length);
    out.writeBytes(trailer.array());
    return out.toByteArray();
  }
}
