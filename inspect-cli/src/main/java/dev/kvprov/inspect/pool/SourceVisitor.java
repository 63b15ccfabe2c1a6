package dev.kvprov.inspect.pool;

import dev.kvprov.kvp.PoolVisitor;

/** Receives one source's records, then {@link #finish} once the source has been read. */
public interface SourceVisitor extends PoolVisitor {
  default void finish() {}
}
