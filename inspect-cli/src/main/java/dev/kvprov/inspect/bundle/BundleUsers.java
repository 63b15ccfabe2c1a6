package dev.kvprov.inspect.bundle;

import dev.kvprov.inspect.pool.Items;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.writers.AzureInitDiagWriter;
import dev.kvprov.inspect.writers.DiagKey;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolVisitor;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The user names a bundle replaces, or none when {@code --redact-users} is not given. Every name is
 * learned before anything is written, so that one user is the same hash in every file.
 */
final class BundleUsers {
  private final UserNames names;
  private final boolean redacting;

  private BundleUsers(UserNames names, boolean redacting) {
    this.names = names;
    this.redacting = redacting;
  }

  /** Names left as they are: the bundle stays inside the company. */
  public static BundleUsers kept() {
    return new BundleUsers(new UserNames(), false);
  }

  /**
   * Every user name to replace: the image's accounts (uid 1000 and up), and every name the pools'
   * records give (span attributes, checks that refused the metadata's name, the media's, reports,
   * commands run), for a run that failed before the user was made leaves the name nowhere else.
   */
  public static BundleUsers learned(
      BundleInput input, List<BundlePool> pools, BundleManifest manifest) {
    UserNames names = new UserNames();
    Path root = input.root();
    if (!input.given() && BundleImageFiles.inside(root, "etc/passwd", manifest)) {
      Path passwd = root.resolve("etc/passwd");
      try {
        names.learnAccounts(passwd);
      } catch (IOException e) {
        manifest.add(
            "not read: "
                + passwd
                + ": "
                + PoolSource.why(e)
                + " (names taken from the pools only)");
      }
    }
    for (BundlePool pool : pools) {
      PoolSource source =
          input.hostExport()
              ? PoolSource.hostExport(pool.file().toString())
              : new PoolSource(pool.file().toString(), PoolSource.Kind.POOL_FILE, pool.file());
      // items, not records: a value split over records may be split inside a name
      Items items = new Items(item -> learn(names, item));
      try {
        source.scan(
            InputStream.nullInputStream(),
            new PoolVisitor() {
              @Override
              public void entry(PoolEntry entry) {
                names.learn(entry.key());
                items.entry(entry);
              }

              @Override
              public void entry(PoolEntry entry, ByteBuffer value) {
                names.learn(entry.key());
                items.entry(entry, value);
              }

              @Override
              public void problem(KvpProblem problem) {
                items.problem(problem);
              }
            });
        items.finish();
      } catch (IOException e) {
        manifest.add("not read for user names: " + pool.file() + ": " + PoolSource.why(e));
      }
    }
    manifest.add("user names replaced by hashes: " + names.size());
    return new BundleUsers(names, true);
  }

  /** The names one item gives: its value, and an azure-init payload's decoded text. */
  private static void learn(UserNames names, Item item) {
    names.learn(item.key());
    names.learn(item.value());
    DiagKey key = DiagKey.ofItem(item.key());
    if (key != null && !key.encoding().equals("none")) {
      String text =
          AzureInitDiagWriter.decode(
              key.encoding(), item.value(), AzureInitDiagWriter.SHOWN_BYTES, new ArrayList<>());
      if (text != null) {
        names.learn(text);
      }
    }
  }

  boolean redacting() {
    return redacting;
  }

  /** The names, for a pool copied record by record ({@link RedactedPool}). */
  UserNames names() {
    return names;
  }

  /** {@code text} with the names replaced, when asked; else as it is. */
  public String redact(String text) {
    return redacting ? names.redact(text) : text;
  }
}
