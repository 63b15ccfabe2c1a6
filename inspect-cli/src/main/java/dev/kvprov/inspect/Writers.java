package dev.kvprov.inspect;

import java.util.List;
import java.util.stream.Stream;

/** The writers kvp knows, in the order help texts name them; anything else is {@link #OTHER}. */
final class Writers {
  static final Writer KVPROV = new KvprovWriter();
  static final Writer AZURE_INIT = new AzureInitWriter();
  static final Writer CLOUD_INIT = new CloudInitWriter();
  static final Writer REPORT = new ReportWriter();

  /** Plain key/value records of any other program. */
  static final Writer OTHER =
      new Writer("other", "#8c8c8c") {
        @Override
        boolean owns(String key) {
          return true;
        }
      };

  private static final List<Writer> KNOWN = List.of(KVPROV, AZURE_INIT, CLOUD_INIT, REPORT);

  private Writers() {}

  /** The writer of a record with this key. */
  static Writer of(String key) {
    for (Writer writer : KNOWN) {
      if (writer.owns(key)) {
        return writer;
      }
    }
    return OTHER;
  }

  /** The writer of this name ({@link Item#writer()}), or {@link #OTHER}. */
  static Writer named(String name) {
    for (Writer writer : KNOWN) {
      if (writer.name().equals(name)) {
        return writer;
      }
    }
    return OTHER;
  }

  /** Every writer, {@link #OTHER} last. */
  static List<Writer> all() {
    return Stream.concat(KNOWN.stream(), Stream.of(OTHER)).toList();
  }

  /** Every writer's name, {@code other} last: what {@code --writer} accepts. */
  static List<String> names() {
    return all().stream().map(Writer::name).toList();
  }
}
