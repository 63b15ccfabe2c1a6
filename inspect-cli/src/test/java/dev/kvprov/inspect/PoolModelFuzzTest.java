package dev.kvprov.inspect;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Pools and host exports as an attacker or a broken writer leaves them, by a coverage-guided
 * fuzzer, held to {@link PoolModelPropertiesTest}'s checks: every record in exactly one item, in
 * order, and every model built. {@code ./mvnw verify} replays the committed seeds ({@code
 * PoolModelFuzzTestInputs}: every writer's records, whole and damaged); {@code .ci/run} fuzzes for
 * a bounded time.
 */
class PoolModelFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void pool_recordsEachLandInExactlyOneItem_andEveryModelIsBuilt(byte[] pool) throws Exception {
    PoolModelPropertiesTest.poolRecordsEachLandInExactlyOneItem(pool);
  }

  @FuzzTest(maxDuration = "60s")
  void hostExport_itemsEachLandInExactlyOneItem_andEveryModelIsBuilt(byte[] export)
      throws Exception {
    PoolModelPropertiesTest.exportItemsEachLandInExactlyOneItem(
        new String(export, StandardCharsets.UTF_8));
  }
}
