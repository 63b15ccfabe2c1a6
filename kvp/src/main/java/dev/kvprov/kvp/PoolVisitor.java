package dev.kvprov.kvp;

/**
 * Receives a pool's records in file order while it is scanned, so a pool of any size is read in
 * constant memory.
 *
 * <p>A problem is delivered before the entry of the record it concerns.
 */
public interface PoolVisitor {
  void entry(PoolEntry entry);

  default void problem(KvpProblem problem) {}
}
