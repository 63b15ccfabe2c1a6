package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.InputKind;
import dev.kvprov.inspect.render.DiffJson;
import dev.kvprov.inspect.render.DiffText;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.spans.BootDiff;
import dev.kvprov.inspect.spans.BootSection;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvp diff}: two boots side by side, step by step. */
@Command(
    name = "diff",
    mixinStandardHelpOptions = true,
    description = {
      "Two boots side by side, step by step: A the earlier, B the later.",
      "",
      "The first line says what matters: where B failed first, or how much slower",
      "or faster it was and at which step (\"slower by 4.2 s: imds.fetch, 3",
      "attempts against 1\"). Then both boots' verdicts and every step with its",
      "time in A and in B and the change, and under it what else changed: its",
      "status, its attempts, its attributes (source, key count, …), or that it",
      "is in one boot only. Steps match by their path of names from the top",
      "span; spans of the same name under the same step are its runs.",
      "",
      "A and B are pool files, archived pools or host-side exports (told apart",
      "by their first bytes); or, with --root, two boots of a rescued disk."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp diff good/.kvp_pool_1 flaky/.kvp_pool_1",
      "  kvp diff /var/lib/kvprov/kvp-archive/pool1-1795322355.kvp \\",
      "      /var/lib/hyperv/.kvp_pool_1",
      "  kvp diff --root /mnt/rescued-disk                  the last two boots",
      "  kvp diff --root /mnt/rescued-disk --boot 3 --boot 5 --json"
    })
final class DiffCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      index = "0",
      arity = "0..1",
      paramLabel = "A",
      description = "The earlier boot: a pool, an archived pool or a host-side export.")
  String a;

  @Parameters(
      index = "1",
      arity = "0..1",
      paramLabel = "B",
      description = "The later boot, the same way.")
  String b;

  @Option(
      names = "--root",
      paramLabel = "R",
      description = "A mounted OS disk: two of its boots (kvprov's archives, then the pool).")
  Path root;

  @Option(
      names = "--boot",
      paramLabel = "N",
      description =
          "With --root, twice: which boots (1 is the oldest archive; latest). Once: that boot"
              + " against the latest. Default: the last two.")
  List<String> boots = new ArrayList<>();

  @Option(
      names = "--pool",
      paramLabel = "N",
      defaultValue = "1",
      description = "Which pool under --root, 0 to 3 (default: ${DEFAULT-VALUE}).")
  int pool;

  @Option(
      names = "--json",
      description =
          "One object: headline, a, b (title, verdict, source, failed, duration_ms),"
              + " change_ms, first_failure, explains, steps.")
  boolean json;

  @Override
  public Integer call() {
    List<BootSection> chosen;
    int of;
    List<String> files = java.util.stream.Stream.of(a, b).filter(f -> f != null).toList();
    if (root != null) {
      if (!files.isEmpty()) {
        throw usage("give two pools, or --root with --boot; not both");
      }
      if (pool < 0 || pool > 3) {
        throw usage("--pool is 0 to 3; Hyper-V has no pool " + pool);
      }
      List<BootSection> all = PoolReading.boots(options(null), spec);
      if (all == null) {
        return ExitCode.IO.code;
      }
      chosen = choose(all);
      of = all.size();
    } else {
      if (files.size() != 2 || !boots.isEmpty()) {
        throw usage(
            files.size() != 2
                ? "give two pools to compare (A, the earlier, then B), or --root R"
                : "--boot chooses among the boots under --root");
      }
      chosen = new ArrayList<>();
      for (String file : files) {
        List<BootSection> read = PoolReading.boots(options(file), spec);
        if (read == null) {
          return ExitCode.IO.code;
        }
        chosen.add(read.get(0));
      }
      of = 0;
    }
    BootDiff diff = BootDiff.of(chosen.get(0), chosen.get(1), of);
    var out = spec.commandLine().getOut();
    if (json) {
      out.println(DiffJson.of(diff));
    } else {
      DiffText.print(diff, out, Style.forStdout());
    }
    return diff.b().failed() ? ExitCode.FOUND.code : ExitCode.OK.code;
  }

  /** The two boots {@code --boot} names, in the order given; by default the last two. */
  private List<BootSection> choose(List<BootSection> all) {
    List<String> wanted = new ArrayList<>();
    for (String boot : boots) {
      String b = boot.toLowerCase(Locale.ROOT);
      if (!b.equals("latest") && !b.matches("[1-9][0-9]{0,4}")) {
        throw usage("--boot is a number from 1 or latest; not " + boot);
      }
      wanted.add(b);
    }
    if (wanted.size() > 2) {
      throw usage("--boot at most twice: the two boots to compare");
    }
    if (wanted.isEmpty()) {
      if (all.size() < 2) {
        throw usage(
            root
                + " holds "
                + all.size()
                + " boot"
                + (all.size() == 1 ? "" : "s")
                + ": nothing to compare with");
      }
      wanted.add(String.valueOf(all.size() - 1));
    }
    if (wanted.size() == 1) {
      wanted.add("latest");
    }
    List<BootSection> chosen = new ArrayList<>();
    for (String b : wanted) {
      int n = b.equals("latest") ? all.size() : Integer.parseInt(b);
      if (n > all.size() || all.isEmpty()) {
        throw usage(
            "--boot "
                + b
                + ": there "
                + (all.size() == 1 ? "is 1 boot" : "are " + all.size() + " boots")
                + " under "
                + root);
      }
      chosen.add(all.get(n - 1));
    }
    return chosen;
  }

  /** What {@code file} names, as the options of the other commands would: an export or a pool. */
  private PoolOptions options(String file) {
    PoolOptions options = new PoolOptions();
    options.dir = Path.of("/var/lib/hyperv");
    options.pool = pool;
    if (file == null) {
      options.source.root = root;
    } else if (!file.equals("-") && looksLikeExport(Path.of(file))) {
      options.source.hostXml = file;
    } else {
      options.source.file = file;
    }
    return options;
  }

  private static boolean looksLikeExport(Path file) {
    byte[] head = new byte[InputKind.HEAD_BYTES];
    try (InputStream in = Files.newInputStream(file)) {
      int n = in.readNBytes(head, 0, head.length);
      return InputKind.of(head, n) == InputKind.HOST_EXPORT;
    } catch (IOException | RuntimeException e) {
      return false; // read as a pool: that read says why it cannot be
    }
  }

  private CommandLine.ParameterException usage(String message) {
    return new CommandLine.ParameterException(spec.commandLine(), message);
  }
}
