package dev.kvprov.inspect.writers;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * One logical item of a pool: a record, or the records a writer split one value into, put back
 * together.
 *
 * @param index the index of its first record
 * @param records the indexes of all its records, in pool order
 * @param key the logical key (without chunk suffixes)
 * @param writer the program that wrote it, as {@link Writers} knows it ({@link Writers#OTHER} when
 *     none does)
 * @param value the logical value: for a chunked cloud-init event, the event JSON as it would have
 *     been written unsplit
 * @param problems what was wrong with it (damaged records, missing pieces); an item with no records
 *     and an empty key carries problems that belong to no record (a torn tail, an export item that
 *     could not be read)
 */
public record Item(
    int index,
    List<Integer> records,
    String key,
    Writer writer,
    String value,
    List<String> problems) {
  public Item {
    records = List.copyOf(records);
    requireNonNull(key, "key");
    requireNonNull(writer, "writer");
    requireNonNull(value, "value");
    problems = List.copyOf(problems);
  }

  /** The same item with one more problem. */
  public Item withProblem(String problem) {
    List<String> more = new java.util.ArrayList<>(problems);
    more.add(problem);
    return new Item(index, records, key, writer, value, more);
  }
}
