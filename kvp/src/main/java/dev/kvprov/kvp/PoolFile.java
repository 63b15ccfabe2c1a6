package dev.kvprov.kvp;

import static dev.kvprov.kvp.RecordCodec.KEY_SIZE;
import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static java.nio.file.StandardOpenOption.APPEND;
import static java.nio.file.StandardOpenOption.CREATE;
import static java.nio.file.StandardOpenOption.READ;
import static java.nio.file.StandardOpenOption.WRITE;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;

/**
 * One KVP pool file ({@code .kvp_pool_N}), read and written under the same locks as every other
 * writer of it.
 *
 * <p>Every operation opens the file, takes {@code flock} and the {@code fcntl} lock, does its work
 * and lets go; waiting for the locks is bounded by the lock timeout, so a stuck writer elsewhere
 * costs a clear error, never a hung boot. Records are written whole, a batch in one {@code write}
 * on an append-only descriptor. Instances are immutable and safe to share between threads.
 */
public final class PoolFile {
  /** Where {@code hv_kvp_daemon} keeps the pools. */
  public static final Path DEFAULT_DIRECTORY = Path.of("/var/lib/hyperv");

  /** How long an operation waits for other writers' locks unless told otherwise. */
  public static final Duration DEFAULT_LOCK_TIMEOUT = Duration.ofSeconds(5);

  /** Where stale pools are archived when an archive is asked for without a directory. */
  public static final Path DEFAULT_ARCHIVE_DIRECTORY = Path.of("/var/lib/kvprov/kvp-archive");

  /** How many archived pools are kept unless told otherwise. */
  public static final int DEFAULT_ARCHIVE_KEEP = 5;

  /**
   * The logger, made when first used: System.getLogger loads some forty classes of the JDK's
   * logging bootstrap, which a pool read that logs nothing (every kvp run) need not pay for.
   */
  private static final class Log {
    static final System.Logger LOG = System.getLogger(PoolFile.class.getName());
  }

  private static final Pattern POOL_NAME = Pattern.compile("\\.kvp_pool_(\\d+)");

  /**
   * A pool we create gets the mode hv_kvp_daemon gives its pools (which it keeps on files that
   * exist): readable by every local user, so support can run {@code kvp} without root. Nothing in a
   * pool is secret: it is what the host sees.
   */
  private static final FileAttribute<?>[] POOL_MODE = {
    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--"))
  };

  private static final FileAttribute<?>[] NO_ATTRIBUTES = {};

  /**
   * With both lock families held, the file is ours alone: it is opened to be read and written
   * anywhere (part of a torn record is removed in place). With only the {@code fcntl} lock, a
   * {@code flock} writer may append at the same time: then only O_APPEND keeps the two apart.
   */
  private static Set<OpenOption> appendOptions() {
    return PoolLock.flockAvailable() ? Set.of(READ, WRITE, CREATE) : Set.of(WRITE, APPEND, CREATE);
  }

  private final Path path;
  private final Duration lockTimeout;
  private final KvpLimits limits;
  private final boolean syncWrites;
  private final PoolArchive archive;
  private final Optional<Consumer<String>> repairs;

  private PoolFile(
      Path path,
      Duration lockTimeout,
      KvpLimits limits,
      boolean syncWrites,
      PoolArchive archive,
      Optional<Consumer<String>> repairs) {
    this.path = path;
    this.lockTimeout = lockTimeout;
    this.limits = limits;
    this.syncWrites = syncWrites;
    this.archive = archive;
    this.repairs = repairs;
  }

  /** Pool {@code pool} (0–3) in {@code directory}, with the default settings. */
  public static PoolFile open(Path directory, int pool) {
    return builder().directory(directory).pool(pool).build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /**
   * Whether locks include {@code flock}. False only when the native library could not load; then
   * only the {@code fcntl} lock is taken (and a warning is logged once).
   */
  public static boolean flockAvailable() {
    return PoolLock.flockAvailable();
  }

  /**
   * Binds the native calls the locks make now rather than at the first lock: JNA's set-up takes
   * tens of milliseconds, which a program that knows early that it will lock a pool can spend on
   * another thread meanwhile. Safe on any thread, any number of times. A native library that cannot
   * load is not reported here: the first lock says so as it is taken, as without this call.
   */
  public static void bindLocks() {
    PoolLock.flockAvailable();
  }

  public Path path() {
    return path;
  }

  public KvpLimits limits() {
    return limits;
  }

  public Duration lockTimeout() {
    return lockTimeout;
  }

  /** The same pool, with another lock timeout. */
  public PoolFile withLockTimeout(Duration timeout) {
    requireNonNull(timeout, "timeout");
    if (timeout.isNegative()) {
      throw new IllegalArgumentException("lockTimeout is negative: " + timeout);
    }
    return new PoolFile(path, timeout, limits, syncWrites, archive, repairs);
  }

  /** Appends one record. See {@link #append(List)}. */
  public void append(KvpRecord record) throws IOException {
    append(List.of(record));
  }

  /**
   * Appends records as one batch: all are validated first (none is written if one is invalid), then
   * written with a single {@code write} under the locks. Creates the pool (mode 0600) and its
   * directory if missing. Part of a record left by a writer that died mid-write is removed first,
   * at the end or, with others' records after it, in the middle (they move up, none is lost), so
   * the batch starts on a record boundary (not when only the {@code fcntl} lock can be taken: then
   * a torn tail may be a record still being written by a {@code flock} writer). A write that fails
   * part way (no space left) is cut back: it leaves no part of a record.
   *
   * @throws IllegalArgumentException if a record does not fit this pool's {@link KvpLimits}
   */
  public void append(List<KvpRecord> records) throws IOException {
    requireNonNull(records, "records");
    if (records.isEmpty()) {
      return;
    }
    byte[] batch = new byte[Math.multiplyExact(records.size(), RECORD_SIZE)];
    for (int i = 0; i < records.size(); i++) {
      RecordCodec.encodeInto(records.get(i), limits, batch, i * RECORD_SIZE);
    }
    try (PoolLock lock = lockCreating(appendOptions())) {
      FileChannel channel = lock.channel();
      dropTornTail(channel);
      appendWhole(channel, batch);
      if (syncWrites) {
        channel.force(false);
      }
    }
  }

  /** Reads every record, under shared locks. For large pools prefer {@link #scan}. */
  public PoolSnapshot read() throws IOException {
    PoolSnapshot.Collector collector = new PoolSnapshot.Collector();
    scan(collector);
    return collector.snapshot();
  }

  /**
   * Streams every record to {@code visitor} in file order, under shared locks held for the whole
   * scan, in constant memory.
   *
   * @throws NoSuchFileException if the pool does not exist
   */
  public void scan(PoolVisitor visitor) throws IOException {
    requireNonNull(visitor, "visitor");
    try (PoolLock lock = lock(Set.of(READ), NO_ATTRIBUTES, true)) {
      new PoolScanner().scan(lock.channel(), visitor, TornRecord.inTheMiddle(lock.channel()));
    }
  }

  /**
   * Forces everything written to the pool onto the disk ({@code fsync}), so it survives a power cut
   * or a hard reset of the VM. Does nothing if the pool does not exist.
   */
  public void sync() throws IOException {
    try (PoolLock lock = lock(Set.of(READ), NO_ATTRIBUTES, true)) {
      lock.channel().force(true);
    } catch (NoSuchFileException e) {
      // nothing written, nothing to sync
    }
  }

  /**
   * Sets {@code record.key()} to {@code record.value()}: the first record with that key is
   * rewritten in place (order kept) and any later duplicates are deleted; with no such record, it
   * is appended. Keys match as the host sees them, ignoring ASCII case, so afterwards the host sees
   * exactly one record with the key.
   *
   * @return true if an existing record was replaced, false if the record was appended
   * @throws IOException also when only the {@code fcntl} lock can be taken (see {@link
   *     #flockAvailable()}): rewriting the file then would race with cloud-init's appends
   */
  public boolean upsert(KvpRecord record) throws IOException {
    byte[] encoded = RecordCodec.encode(record, limits);
    byte[] key = RecordCodec.keyBytes(record.key(), limits);
    requireFlockToRewrite("upsert");
    try (PoolLock lock = lockCreating(Set.of(READ, WRITE, CREATE))) {
      FileChannel channel = lock.channel();
      long[] matches = findKey(channel, key);
      if (matches.length == 0) {
        dropTornTail(channel);
        appendWhole(channel, encoded);
      } else {
        writeFully(channel, ByteBuffer.wrap(encoded), matches[0] * RECORD_SIZE);
        removeRecords(channel, Arrays.copyOfRange(matches, 1, matches.length));
      }
      if (syncWrites) {
        channel.force(false);
      }
      return matches.length > 0;
    }
  }

  /**
   * Rewrites, in place, the first record whose key is {@code key} (ignoring ASCII case) with {@code
   * record}: the file does not grow, so this works on a full disk, where a slot taken earlier can
   * be given to the record that matters most.
   *
   * @return false if no record has the key (nothing written)
   */
  public boolean replace(String key, KvpRecord record) throws IOException {
    byte[] encoded = RecordCodec.encode(record, limits);
    byte[] keyBytes = RecordCodec.keyBytes(key, KvpLimits.WIRE);
    requireFlockToRewrite("replace");
    try (PoolLock lock = lock(Set.of(READ, WRITE), NO_ATTRIBUTES, false)) {
      FileChannel channel = lock.channel();
      long[] matches = findKey(channel, keyBytes);
      if (matches.length == 0) {
        return false;
      }
      writeFully(channel, ByteBuffer.wrap(encoded), matches[0] * RECORD_SIZE);
      if (syncWrites) {
        channel.force(false);
      }
      return true;
    } catch (NoSuchFileException e) {
      return false;
    }
  }

  /**
   * Deletes every record whose key is {@code key} (ignoring ASCII case, as the host does); later
   * records move up to close the gap, as {@code hv_kvp_daemon} does, so the file stays a dense
   * array in the same order. The records are moved in place, because the daemon keeps the file
   * open: a crash midway can leave some records twice, but loses none.
   *
   * @return how many records were deleted
   * @throws IOException also when only the {@code fcntl} lock can be taken (see {@link
   *     #flockAvailable()})
   */
  public int delete(String key) throws IOException {
    byte[] keyBytes = RecordCodec.keyBytes(key, KvpLimits.WIRE);
    requireFlockToRewrite("delete");
    try (PoolLock lock = lock(Set.of(READ, WRITE), NO_ATTRIBUTES, false)) {
      FileChannel channel = lock.channel();
      long[] matches = findKey(channel, keyBytes);
      removeRecords(channel, matches);
      if (syncWrites && matches.length > 0) {
        channel.force(false);
      }
      return matches.length;
    } catch (NoSuchFileException e) {
      return 0;
    }
  }

  /**
   * Empties the pool if it was last written before {@code bootTime} (mtime ≤ boot time), so this
   * boot's records do not mix with an earlier boot's. With an archive configured, a non-empty pool
   * is first copied there durably; if that copy fails (a full disk), the pool is emptied all the
   * same and the result says why there is no copy. All of it happens under the locks.
   *
   * @throws IOException also when only the {@code fcntl} lock can be taken (see {@link
   *     #flockAvailable()})
   */
  public StaleClearResult clearIfStale(Instant bootTime) throws IOException {
    requireNonNull(bootTime, "bootTime");
    return clear(bootTime, false);
  }

  /**
   * Empties the pool whenever it was written, as {@link #clearIfStale} does a stale one (archived
   * first when an archive is configured, named after now): for a person who asks for it.
   */
  public StaleClearResult clear() throws IOException {
    return clear(Instant.now(), true);
  }

  private StaleClearResult clear(Instant bootTime, boolean whenever) throws IOException {
    requireFlockToRewrite(whenever ? "clear a pool" : "clear a stale pool");
    try (PoolLock lock = lock(Set.of(READ, WRITE), NO_ATTRIBUTES, false)) {
      FileChannel channel = lock.channel();
      FileTime modified = Files.getLastModifiedTime(path);
      if (!whenever && modified.toInstant().isAfter(bootTime)) {
        return new StaleClearResult(
            StaleClearResult.Outcome.FRESH, 0, Optional.empty(), Optional.empty());
      }
      long size = channel.size();
      Optional<Path> archived = Optional.empty();
      Optional<String> notArchived = Optional.empty();
      if (archive != null && size > 0) {
        try {
          archived = Optional.of(archive.store(channel, size, label(), bootTime.getEpochSecond()));
        } catch (IOException e) {
          // A full or broken archive must not keep last boot's records in this boot's pool, where
          // the host would read them as this boot's: they go without their copy, and it is said.
          notArchived = Optional.of(IoErrors.describe(e));
        }
      }
      // Emptying a non-empty file sets its mtime to now, so a second call this boot finds it fresh.
      // (Touching the mtime by path would open and close the file, dropping our fcntl lock.)
      channel.truncate(0);
      channel.force(true);
      return new StaleClearResult(
          StaleClearResult.Outcome.CLEARED, size / RECORD_SIZE, archived, notArchived);
    } catch (NoSuchFileException e) {
      return new StaleClearResult(
          StaleClearResult.Outcome.ABSENT, 0, Optional.empty(), Optional.empty());
    }
  }

  /**
   * Rewriting records in place, or truncating, is only safe while cloud-init's {@code flock}
   * appends are shut out; without native code they are not, and an append landing mid-rewrite would
   * be overwritten or cut off.
   */
  private void requireFlockToRewrite(String operation) throws IOException {
    if (!PoolLock.flockAvailable()) {
      throw new IOException(
          "cannot "
              + operation
              + " on "
              + path
              + ": native flock is unavailable ("
              + LibC.unavailableReason()
              + "), so cloud-init's appends cannot be shut out; appending still works");
    }
  }

  private PoolLock lock(Set<OpenOption> options, FileAttribute<?>[] attributes, boolean shared)
      throws IOException {
    return PoolLock.acquire(path, options, attributes, shared, lockTimeout);
  }

  /**
   * Locks for a write that may create the pool, and its directory if that is missing too (found by
   * trying, which spares a system call on every write).
   */
  private PoolLock lockCreating(Set<OpenOption> options) throws IOException {
    try {
      return lock(options, POOL_MODE, false);
    } catch (NoSuchFileException e) {
      Path parent = path.toAbsolutePath().getParent();
      if (parent == null) {
        throw e;
      }
      // Another thread may have made the directory since our attempt: make sure, then retry once.
      Files.createDirectories(parent);
      return lock(options, POOL_MODE, false);
    }
  }

  /** "pool1" for {@code .kvp_pool_1}, else the file name: names archive copies. */
  private String label() {
    String name = path.getFileName().toString();
    Matcher m = POOL_NAME.matcher(name);
    return m.matches() ? "pool" + m.group(1) : name.replaceAll("[^A-Za-z0-9_.-]", "_");
  }

  private void dropTornTail(FileChannel channel) throws IOException {
    // Only safe while holding flock too: otherwise the "torn" bytes may be a cloud-init record
    // that is being written right now, and cutting them would destroy it.
    if (!PoolLock.flockAvailable()) {
      return;
    }
    Optional<TornRecord> torn = TornRecord.find(channel);
    if (torn.isEmpty()) {
      return;
    }
    long size = channel.size();
    long at = torn.get().offset();
    int length = torn.get().length();
    if (at + length < size) {
      // Others wrote after it: close the gap, so their records are on the grid again, all kept.
      ByteBuffer moving = ByteBuffer.allocate(64 * RECORD_SIZE);
      for (long from = at + length; from < size; ) {
        moving.clear();
        int n = channel.read(moving, from);
        if (n <= 0) {
          break;
        }
        moving.flip();
        writeFully(channel, moving, from - length);
        from += n;
      }
    }
    channel.truncate(size - length);
    String repair =
        path
            + " held part of a record ("
            + length
            + " bytes at offset "
            + at
            + ", left by a writer that died mid-write); removed it so that every record is whole"
            + " and on the grid";
    if (repairs.isPresent()) {
      repairs.get().accept(repair);
    } else {
      Log.LOG.log(Level.WARNING, "kvp: {0}", repair);
    }
  }

  /** Indexes of the records whose key field holds {@code key}, ignoring ASCII case. */
  private static long[] findKey(FileChannel channel, byte[] key) throws IOException {
    LongStream.Builder found = LongStream.builder();
    byte[] buffer = new byte[PoolScanner.RECORDS_PER_READ * RECORD_SIZE];
    long records = channel.size() / RECORD_SIZE;
    for (long first = 0; first < records; first += PoolScanner.RECORDS_PER_READ) {
      int count = (int) Math.min(PoolScanner.RECORDS_PER_READ, records - first);
      readFully(channel, ByteBuffer.wrap(buffer, 0, count * RECORD_SIZE), first * RECORD_SIZE);
      for (int r = 0; r < count; r++) {
        int at = r * RECORD_SIZE;
        if (key.length < KEY_SIZE
            && buffer[at + key.length] == 0
            && equalsIgnoreAsciiCase(buffer, at, key)) {
          found.add(first + r);
        }
      }
    }
    return found.build().toArray();
  }

  private static boolean equalsIgnoreAsciiCase(byte[] buffer, int at, byte[] key) {
    for (int i = 0; i < key.length; i++) {
      if (lowerAscii(buffer[at + i]) != lowerAscii(key[i])) {
        return false;
      }
    }
    return true;
  }

  private static byte lowerAscii(byte b) {
    return b >= 'A' && b <= 'Z' ? (byte) (b + ('a' - 'A')) : b;
  }

  /**
   * Removes the records at the given ascending indexes by moving every later byte up, then cuts the
   * file to its new length. Streams through a fixed buffer; the write position never passes the
   * read position, so nothing is overwritten before it has been read.
   */
  private static void removeRecords(FileChannel channel, long[] indexes) throws IOException {
    if (indexes.length == 0) {
      return;
    }
    long size = channel.size();
    byte[] buffer = new byte[PoolScanner.RECORDS_PER_READ * RECORD_SIZE];
    long write = indexes[0] * RECORD_SIZE;
    long read = write;
    int next = 0;
    while (read < size) {
      int length = (int) Math.min(buffer.length, size - read);
      readFully(channel, ByteBuffer.wrap(buffer, 0, length), read);
      int kept = 0;
      for (int at = 0; at < length; at += RECORD_SIZE) {
        long index = (read + at) / RECORD_SIZE;
        int chunk = Math.min(RECORD_SIZE, length - at);
        if (next < indexes.length && indexes[next] == index && chunk == RECORD_SIZE) {
          next++;
          continue;
        }
        System.arraycopy(buffer, at, buffer, kept, chunk);
        kept += chunk;
      }
      writeFully(channel, ByteBuffer.wrap(buffer, 0, kept), write);
      write += kept;
      read += length;
    }
    channel.truncate(write);
  }

  private static void readFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    while (buffer.hasRemaining()) {
      int n = channel.read(buffer, position);
      if (n < 0) {
        throw new IOException("the pool shrank while it was locked");
      }
      position += n;
    }
  }

  /** Writes all of {@code buffer}; at the end of an append channel when {@code position < 0}. */
  /**
   * Appends whole records or nothing: a write that fails part way (no space left, a quota) is cut
   * back to where it began, so it leaves no torn record of ours for the next writer to follow.
   */
  private static void appendWhole(FileChannel channel, byte[] records) throws IOException {
    long before = channel.size();
    try {
      writeFully(channel, ByteBuffer.wrap(records), before);
    } catch (IOException e) {
      // Only while the file is ours alone: without flock, the bytes past our start may be a
      // cloud-init record appended meanwhile.
      if (PoolLock.flockAvailable()) {
        try {
          channel.truncate(before);
        } catch (IOException cut) {
          e.addSuppressed(cut);
        }
      }
      throw e;
    }
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer, long position)
      throws IOException {
    while (buffer.hasRemaining()) {
      if (position < 0) {
        channel.write(buffer);
      } else {
        position += channel.write(buffer, position);
      }
    }
  }

  @Override
  public String toString() {
    return "PoolFile[" + path + "]";
  }

  /** Settings for a {@link PoolFile}. Defaults: pool 1 in {@code /var/lib/hyperv}, host-safe. */
  public static final class Builder {
    private Path directory = DEFAULT_DIRECTORY;
    private int pool = 1;
    private Path file;
    private Duration lockTimeout = DEFAULT_LOCK_TIMEOUT;
    private KvpLimits limits = KvpLimits.HOST_SAFE;
    private boolean syncWrites;
    private Path archiveDirectory;
    private int keep = DEFAULT_ARCHIVE_KEEP;
    private Consumer<String> repairs;

    private Builder() {}

    /** The directory holding {@code .kvp_pool_N} (a rescued disk's, a test's). */
    public Builder directory(Path directory) {
      this.directory = requireNonNull(directory, "directory");
      this.file = null;
      return this;
    }

    /** Which pool, 0 to 3. Pool 1 is the guest's own. */
    public Builder pool(int pool) {
      if (pool < 0 || pool > 3) {
        throw new IllegalArgumentException("pool is " + pool + "; Hyper-V has pools 0 to 3");
      }
      this.pool = pool;
      return this;
    }

    /** An exact file instead of directory + pool (an exported or archived pool). */
    public Builder file(Path file) {
      this.file = requireNonNull(file, "file");
      return this;
    }

    /** The longest an operation waits for other writers' locks. */
    public Builder lockTimeout(Duration lockTimeout) {
      requireNonNull(lockTimeout, "lockTimeout");
      if (lockTimeout.isNegative()) {
        throw new IllegalArgumentException("lockTimeout is negative: " + lockTimeout);
      }
      this.lockTimeout = lockTimeout;
      return this;
    }

    /** The size limits records are checked against when written. */
    public Builder limits(KvpLimits limits) {
      this.limits = requireNonNull(limits, "limits");
      return this;
    }

    /**
     * Whether each write is forced to disk ({@code fdatasync}) before it returns, so it survives a
     * power cut or a hard reset of the VM, not only the death of the process. Off by default.
     */
    public Builder syncWrites(boolean syncWrites) {
      this.syncWrites = syncWrites;
      return this;
    }

    /**
     * Archive a stale pool into {@code directory} before {@link PoolFile#clearIfStale} empties it,
     * keeping the newest {@code keep} copies.
     */
    public Builder archive(Path directory, int keep) {
      if (keep < 1) {
        throw new IllegalArgumentException(
            "keep is " + keep + "; an archive keeps at least 1 copy");
      }
      this.archiveDirectory = requireNonNull(directory, "directory");
      this.keep = keep;
      return this;
    }

    /**
     * Who is told, in one plain sentence, when a write repairs the pool (part of a record a writer
     * left when it died, removed). By default a warning to {@link System.Logger}, which a service
     * sends to its log; a command line tells its user on stderr instead, in its own words, rather
     * than through the JDK's logging format.
     */
    public Builder repairs(Consumer<String> repairs) {
      this.repairs = requireNonNull(repairs, "repairs");
      return this;
    }

    public PoolFile build() {
      return new PoolFile(
          file != null ? file : directory.resolve(".kvp_pool_" + pool),
          lockTimeout,
          limits,
          syncWrites,
          archiveDirectory == null ? null : new PoolArchive(archiveDirectory, keep),
          Optional.ofNullable(repairs));
    }
  }
}
