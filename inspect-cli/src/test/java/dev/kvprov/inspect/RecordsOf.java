package dev.kvprov.inspect;

import dev.kvprov.inspect.cli.KvpCommandTest;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.RecordCodec;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.List;

/** Records of the test fixtures, to build variations of them. */
final class RecordsOf {
  private RecordsOf() {}

  static List<KvpRecord> cloudInitFixture() {
    try {
      return RecordCodec.decode(Files.readAllBytes(KvpCommandTest.CLOUD_INIT_POOL))
          .entries()
          .stream()
          .map(PoolEntry::record)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
