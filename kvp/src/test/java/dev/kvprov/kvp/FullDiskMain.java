package dev.kvprov.kvp;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Pool operations in a process of their own, for a test to run on a full file system: prints what
 * happened, one line per operation.
 *
 * <p>Usage: {@code FullDiskMain append POOL N} (N records in one batch) or {@code FullDiskMain
 * clear POOL ARCHIVE_DIR BOOT_EPOCH}.
 */
public final class FullDiskMain {
  private FullDiskMain() {}

  public static void main(String[] args) throws Exception {
    Path file = Path.of(args[1]);
    switch (args[0]) {
      case "append" -> {
        List<KvpRecord> batch = new ArrayList<>();
        for (int i = 0; i < Integer.parseInt(args[2]); i++) {
          batch.add(PeerRecords.record("kvprov", i));
        }
        try {
          PoolFile.builder().file(file).build().append(batch);
          System.out.println("appended " + batch.size());
        } catch (java.io.IOException e) {
          System.out.println("failed: " + IoErrors.reason(e));
        }
      }
      case "clear" -> {
        StaleClearResult result =
            PoolFile.builder()
                .file(file)
                .archive(Path.of(args[2]), 5)
                .build()
                .clearIfStale(Instant.ofEpochSecond(Long.parseLong(args[3])));
        System.out.println(
            result.outcome()
                + " "
                + result.recordsCleared()
                + " "
                + result.notArchived().orElse(""));
      }
      default -> throw new IllegalArgumentException(args[0]);
    }
  }
}
