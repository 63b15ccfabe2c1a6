package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.cli.ItemLedger.Sighting;
import dev.kvprov.inspect.cli.ItemLedger.State;
import dev.kvprov.inspect.pool.Items;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.writers.Writers;
import dev.kvprov.kvp.PoolFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A pool file that other processes write, looked at again and again and read only when it may have
 * changed: its size, mtime or identity (inode) moved, or its mtime is too recent to prove anything.
 * The whole pool is read then (a few hundred records at most), under shared locks, so a rewrite by
 * hv_kvp_daemon ({@code fcntl}) or an append by cloud-init ({@code flock}) is seen whole. Not
 * thread-safe.
 */
final class LivePool {
  /**
   * How old the mtime must be, when a read begins, before an unchanged stamp proves the pool
   * unchanged. A write in the same clock tick as the one before the read leaves the mtime (and, for
   * an in-place rewrite, the size) as it was; ticks are milliseconds on Linux, but up to 2 s on
   * some file systems. A clock stepped back at boot puts the mtime ahead: not settled either.
   */
  private static final Duration SAME_TICK = Duration.ofSeconds(2);

  /** What the file's metadata says. */
  private record Stamp(Object fileKey, long size, FileTime modified) {}

  private final Path path;
  private final PoolFile pool;
  private Optional<Stamp> read = Optional.empty();
  private boolean settled;

  LivePool(Path path) {
    this.path = path;
    this.pool = PoolFile.builder().file(path).build();
  }

  /** Whether the pool existed at the last look. */
  boolean exists() {
    return read.isPresent();
  }

  /**
   * The pool's items if it may have changed since the last look, or if {@code again}; an empty list
   * if it does not exist; nothing if it is as it was.
   */
  Optional<List<Sighting>> look(boolean again) throws IOException {
    PoolSource.requireRegularFile(path);
    Optional<Stamp> stamp = stamp();
    if (stamp.isPresent() && stamp.equals(read) && settled && !again) {
      return Optional.empty();
    }
    read = stamp;
    if (stamp.isEmpty()) {
      return Optional.of(List.of());
    }
    PoolSource.requirePool(path);
    Instant began = Instant.now();
    try {
      List<Sighting> sightings = scan();
      settled =
          Duration.between(stamp.get().modified().toInstant(), began).compareTo(SAME_TICK) >= 0;
      return Optional.of(sightings);
    } catch (NoSuchFileException e) {
      read = Optional.empty(); // removed between the look and the read
      return Optional.of(List.of());
    }
  }

  private Optional<Stamp> stamp() throws IOException {
    try {
      BasicFileAttributes a = Files.readAttributes(path, BasicFileAttributes.class);
      return Optional.of(new Stamp(a.fileKey(), a.size(), a.lastModifiedTime()));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /** The pool's items, each with how far it is from being showable. */
  private List<Sighting> scan() throws IOException {
    List<Sighting> sightings = new ArrayList<>();
    boolean[] atEnd = {false};
    // Items emits a group as soon as all its pieces are in. What it emits at the end is a group
    // still open: a kvprov item with pieces missing (its key says how many: it waits for them),
    // or a cloud-init event, whose chunks do not say how many there are.
    Items items =
        new Items(
            item ->
                sightings.add(
                    new Sighting(
                        item,
                        !atEnd[0]
                            ? State.WHOLE
                            : item.writer() == Writers.KVPROV ? State.INCOMPLETE : State.OPEN)));
    pool.scan(items);
    atEnd[0] = true;
    items.finish();
    return sightings;
  }
}
