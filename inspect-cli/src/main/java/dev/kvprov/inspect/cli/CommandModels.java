package dev.kvprov.inspect.cli;

import java.nio.file.Path;
import java.util.function.Consumer;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The parts of kvp's command models that are built in code rather than read from annotations: the
 * root, the read commands {@code list}, {@code tree}, {@code timeline}, {@code report} and {@code
 * dump}, and the write commands. Reading annotations makes the JDK generate a proxy class per
 * annotation type at every start, which no start-up archive keeps; a short {@code kvp set} spent
 * more time there than in its write (docs/performance.md). Each part says what its annotated twin
 * says, word for word, so that help, man pages and completion do not change.
 */
final class CommandModels {
  private CommandModels() {}

  /**
   * A command's model around {@code command} (run as it is, never inspected); its options are added
   * next, then {@link #withStandardHelp}.
   */
  static CommandSpec command(Object command, String[] description, String... footer) {
    CommandSpec spec = CommandSpec.wrapWithoutInspection(command);
    spec.usageMessage().description(description).footer(footer);
    return spec;
  }

  /**
   * Adds {@code -h, --help} and {@code -V, --version} as picocli's {@code mixinStandardHelpOptions}
   * does, and where it does: last (completion lists options in the order they were added).
   */
  static CommandSpec withStandardHelp(CommandSpec spec) {
    CommandSpec help = CommandSpec.create();
    help.addOption(
        OptionSpec.builder("-h", "--help")
            .usageHelp(true)
            .descriptionKey("mixinStandardHelpOptions.help")
            .description("Show this help message and exit.")
            .build());
    help.addOption(
        OptionSpec.builder("-V", "--version")
            .versionHelp(true)
            .descriptionKey("mixinStandardHelpOptions.version")
            .description("Print version information and exit.")
            .build());
    // the key picocli's own mixin has: CommandSpec.mixinStandardHelpOptions() reads true
    return spec.addMixin("mixinStandardHelpOptions", help);
  }

  /** {@link PoolOptions}' options, bound to {@code input}: what {@code @Mixin PoolOptions} adds. */
  static CommandSpec poolOptions(CommandSpec mixee, PoolOptions input) {
    input.mixee = mixee;
    CommandSpec options = CommandSpec.wrapWithoutInspection(input);
    options.addArgGroup(
        ArgGroupSpec.builder()
            .exclusive(true)
            .multiplicity("0..1")
            .addArg(
                OptionSpec.builder("--file")
                    .paramLabel("F")
                    .type(String.class)
                    .setter(setter((String f) -> input.source.file = f))
                    .description("A pool file or an archived pool; - reads a pool from stdin.")
                    .build())
            .addArg(
                OptionSpec.builder("--root")
                    .paramLabel("R")
                    .type(Path.class)
                    .setter(setter((Path r) -> input.source.root = r))
                    .description(
                        "A mounted OS disk: kvprov's archives of earlier boots under R, then R's"
                            + " pool.")
                    .build())
            .addArg(
                OptionSpec.builder("--host-xml")
                    .paramLabel("F")
                    .type(String.class)
                    .setter(setter((String x) -> input.source.hostXml = x))
                    .description(
                        "A host-side export: Msvm_KvpExchangeDataItem CIM-XML, one per line,"
                            + " concatenated, or a JSON array of them; - reads stdin.")
                    .build())
            .build());
    options.addOption(
        OptionSpec.builder("--dir")
            .paramLabel("DIR")
            .type(Path.class)
            .defaultValue("/var/lib/hyperv")
            .setter(setter((Path d) -> input.dir = d))
            .description("The pool directory (default: ${DEFAULT-VALUE}).")
            .build());
    options.addOption(
        OptionSpec.builder("--pool")
            .paramLabel("N")
            .type(int.class)
            .defaultValue("1")
            .setter(setter((Integer n) -> input.pool(n)))
            .description("Which pool, 0 to 3 (default: ${DEFAULT-VALUE}).")
            .build());
    return options;
  }

  /** {@link ItemFilter}'s options, bound to {@code filter}: what {@code @Mixin ItemFilter} adds. */
  static CommandSpec itemFilter(CommandSpec mixee, ItemFilter filter) {
    filter.mixee = mixee;
    CommandSpec options = CommandSpec.wrapWithoutInspection(filter);
    options.addOption(
        OptionSpec.builder("--grep")
            .paramLabel("TEXT")
            .type(String.class)
            .setter(setter((String g) -> filter.grep = g))
            .description("Only items whose key or value contains TEXT.")
            .build());
    options.addOption(
        OptionSpec.builder("--writer")
            .paramLabel("W")
            .type(String.class)
            .setter(setter(filter::writer))
            .description(
                "Only one writer's: kvprov, azure-init, azure-init-diag, cloud-init, report or"
                    + " other.")
            .build());
    return options;
  }

  /** {@link BootChoice}'s option, bound to {@code boots}: what {@code @Mixin BootChoice} adds. */
  static CommandSpec bootChoice(CommandSpec mixee, BootChoice boots) {
    boots.mixee = mixee;
    CommandSpec options = CommandSpec.wrapWithoutInspection(boots);
    options.addOption(
        OptionSpec.builder("--boot")
            .paramLabel("N")
            .type(String.class)
            .setter(setter(boots::boot))
            .description(
                "Which boot, with --root: N (1 is the oldest archive), latest, or all (default).")
            .build());
    return options;
  }

  /** An option that is there or not, as a {@code boolean} field's {@code @Option} is. */
  static OptionSpec.Builder flag(String name, Consumer<Boolean> to) {
    return OptionSpec.builder(name).type(boolean.class).setter(setter(to));
  }

  /**
   * Where picocli puts an argument's value. Before parsing it resets every argument to its initial
   * value, which is none here: that is passed over, the object's own initial values stand.
   */
  static <V> ISetter setter(Consumer<V> to) {
    return new ISetter() {
      @Override
      @SuppressWarnings("unchecked")
      public <T> T set(T value) {
        if (value != null) {
          to.accept((V) value);
        }
        return null;
      }
    };
  }
}
