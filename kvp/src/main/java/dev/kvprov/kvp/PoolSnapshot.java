package dev.kvprov.kvp;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Every record of a pool as read at one moment, and every problem met while decoding it.
 *
 * @param entries the records in file order
 * @param problems what was wrong, in file order; empty for a healthy pool
 */
public record PoolSnapshot(List<PoolEntry> entries, List<KvpProblem> problems) {
  public PoolSnapshot {
    entries = List.copyOf(entries);
    problems = List.copyOf(problems);
  }

  /** The records alone, in file order. */
  public List<KvpRecord> records() {
    return entries.stream().map(PoolEntry::record).toList();
  }

  /** The value of the first record with this exact key. */
  public Optional<String> firstValue(String key) {
    return entries.stream().filter(e -> e.key().equals(key)).map(PoolEntry::value).findFirst();
  }

  static final class Collector implements PoolVisitor {
    private final List<PoolEntry> entries = new ArrayList<>();
    private final List<KvpProblem> problems = new ArrayList<>();

    @Override
    public void entry(PoolEntry entry) {
      entries.add(entry);
    }

    @Override
    public void problem(KvpProblem problem) {
      problems.add(problem);
    }

    PoolSnapshot snapshot() {
      return new PoolSnapshot(entries, problems);
    }
  }
}
