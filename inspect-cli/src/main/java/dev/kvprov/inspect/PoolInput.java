package dev.kvprov.inspect;

import dev.kvprov.kvp.PoolFile;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/** Where the pool comes from; shared by every read command. Reading never modifies it. */
final class PoolInput {
  @Option(
      names = "--file",
      paramLabel = "F",
      description = "A pool file or an archived pool; - reads a pool from stdin.")
  String file;

  @Option(
      names = "--dir",
      paramLabel = "DIR",
      defaultValue = "/var/lib/hyperv",
      description = "The pool directory (default: ${DEFAULT-VALUE}).")
  Path dir;

  @Option(
      names = "--pool",
      paramLabel = "N",
      defaultValue = "1",
      description = "Which pool, 0 to 3 (default: ${DEFAULT-VALUE}).")
  int pool;

  @Option(
      names = "--root",
      paramLabel = "R",
      description = "A mounted OS disk: its R/var/lib/hyperv.")
  Path root;

  /** Streams the pool's records, under shared locks when it is a file (other writers go on). */
  void scan(InputStream stdin, PoolVisitor visitor) throws IOException {
    if ("-".equals(file)) {
      RecordCodec.scan(stdin, visitor);
      return;
    }
    PoolFile.builder().file(path()).build().scan(visitor);
  }

  /**
   * Streams the pool's logical items to {@code sink}. On an I/O error, says why on stderr (naming
   * the command and the pool) and returns false: the command exits 3.
   */
  boolean forEachItem(Consumer<Item> sink, CommandLine.Model.CommandSpec spec) {
    Items items = new Items(sink);
    try {
      scan(System.in, items);
      items.finish();
      return true;
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("kvp " + spec.name() + ": " + describe() + ": " + e.getMessage());
      return false;
    }
  }

  Path path() {
    if (file != null) {
      return Path.of(file);
    }
    Path base = root != null ? root.resolve("var/lib/hyperv") : dir;
    return base.resolve(".kvp_pool_" + pool);
  }

  String describe() {
    return "-".equals(file) ? "stdin" : path().toString();
  }
}
