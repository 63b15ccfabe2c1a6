package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.Writer;
import dev.kvprov.inspect.writers.Writers;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * {@code --writer} and {@code --grep}: which items a listing shows ({@code list}, {@code watch}).
 */
final class ItemFilter {
  @CommandLine.Spec(CommandLine.Spec.Target.MIXEE)
  CommandLine.Model.CommandSpec mixee;

  private String writer;

  @Option(
      names = "--grep",
      paramLabel = "TEXT",
      description = "Only items whose key or value contains TEXT.")
  String grep;

  @Option(
      names = "--writer",
      paramLabel = "W",
      description =
          "Only one writer's: kvprov, azure-init, azure-init-diag, cloud-init, report or other.")
  void writer(String writer) {
    List<String> writers = Writers.names();
    if (!writers.contains(writer)) {
      throw new CommandLine.ParameterException(
          mixee.commandLine(),
          "--writer is one of " + String.join(", ", writers) + "; not " + writer);
    }
    this.writer = writer;
  }

  /**
   * Whether the listing shows the item: a second copy of another writer's items (kvprov's DIAG
   * records) only when its own writer is asked for, so that no step shows twice.
   */
  boolean accepts(Item item) {
    return accepts(item.writer(), item.key(), item.value())
        && (writer != null || !item.writer().reader().copy(item));
  }

  boolean accepts(Writer itemWriter, String key, String value) {
    return (writer == null || itemWriter.name().equals(writer))
        && (grep == null || key.contains(grep) || value.contains(grep));
  }
}
