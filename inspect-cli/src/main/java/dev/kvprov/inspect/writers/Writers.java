package dev.kvprov.inspect.writers;

import java.util.List;
import java.util.stream.Stream;

/** The writers kvp knows, in the order help texts name them; anything else is {@link #OTHER}. */
public final class Writers {
  public static final Writer KVPROV = KvprovWriter.WRITER;
  public static final Writer AZURE_INIT = AzureInitWriter.WRITER;
  static final Writer AZURE_INIT_DIAG = AzureInitDiagWriter.WRITER;
  static final Writer CLOUD_INIT = CloudInitWriter.WRITER;
  public static final Writer REPORT = ReportWriter.WRITER;

  /** Plain key/value records of any other program: each record an item, which says nothing. */
  public static final Writer OTHER =
      new Writer(
          "other",
          "#8c8c8c",
          new RecordRule() {
            @Override
            boolean owns(String key) {
              return true;
            }
          },
          new ItemReader<Void>() {
            @Override
            java.util.Optional<Void> reading(Item item) {
              return java.util.Optional.empty();
            }
          });

  /** Every writer kvp knows. A new writer: its class, and a line here. */
  private static final List<Writer> KNOWN =
      List.of(KVPROV, AZURE_INIT, AZURE_INIT_DIAG, CLOUD_INIT, REPORT);

  /** Writers a test teaches kvp for a while ({@link #teach}); none otherwise. */
  private static volatile List<Writer> taught = List.of();

  private Writers() {}

  /**
   * Knows {@code writer} too, until the result is closed: for a test's toy writer, which shows that
   * a writer is one class.
   */
  static synchronized AutoCloseable teach(Writer writer) {
    taught = Stream.concat(taught.stream(), Stream.of(writer)).toList();
    return () -> {
      synchronized (Writers.class) {
        taught = taught.stream().filter(w -> w != writer).toList();
      }
    };
  }

  private static List<Writer> known() {
    List<Writer> extra = taught;
    return extra.isEmpty() ? KNOWN : Stream.concat(KNOWN.stream(), extra.stream()).toList();
  }

  /** The writer of a record with this key. */
  public static Writer of(String key) {
    for (Writer writer : known()) {
      if (writer.rule().owns(key)) {
        return writer;
      }
    }
    return OTHER;
  }

  /** The writer of this name ({@link Item#writer()}), or {@link #OTHER}. */
  public static Writer named(String name) {
    for (Writer writer : known()) {
      if (writer.name().equals(name)) {
        return writer;
      }
    }
    return OTHER;
  }

  /** Every writer, {@link #OTHER} last. */
  static List<Writer> all() {
    return Stream.concat(known().stream(), Stream.of(OTHER)).toList();
  }

  /** Every writer's name, {@code other} last: what {@code --writer} accepts. */
  public static List<String> names() {
    return all().stream().map(Writer::name).toList();
  }
}
