package dev.kvprov.inspect.writers;

/**
 * A program whose records kvp reads: its name, how its records join into items ({@link RecordRule},
 * for {@code Items}) and what its items mean ({@link ItemReader}, for the commands). Each writer is
 * one class providing both; {@link Writers} lists them.
 */
public final class Writer {
  private final String name;
  private final String label;
  private final String colour;
  private final RecordRule rule;
  private final ItemReader<?> reader;

  /**
   * @param name how output names it ({@code list}'s {@code writer}, {@code --writer})
   * @param label how human output names it, in a column of ten
   * @param colour its colour on the timeline page
   */
  Writer(String name, String label, String colour, RecordRule rule, ItemReader<?> reader) {
    this.name = name;
    this.label = label;
    this.colour = colour;
    this.rule = rule;
    this.reader = reader;
  }

  Writer(String name, String colour, RecordRule rule, ItemReader<?> reader) {
    this(name, name, colour, rule, reader);
  }

  public String name() {
    return name;
  }

  /** How human output names it, in a column of ten: its name unless that is longer. */
  public String label() {
    return label;
  }

  public String colour() {
    return colour;
  }

  /** How its records join into items. */
  public RecordRule rule() {
    return rule;
  }

  /** What its items mean. */
  public ItemReader<?> reader() {
    return reader;
  }
}
