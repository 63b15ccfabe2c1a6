package dev.kvprov.kvp;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * Pools as an attacker or a broken writer leaves them, by a coverage-guided fuzzer: {@code ./mvnw
 * verify} replays the committed seeds (the {@code RecordCodecFuzzTestInputs} resources: every
 * writer's records, torn and noisy pools); {@code .ci/run} fuzzes for a bounded time.
 */
class RecordCodecFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void decode_ofAnyBytes_agreesWithAPlainReadingOfEverySlot(byte[] data) {
    CodecPropertiesTest.decodeAgreesWithAPlainReadingOfEverySlot(data);
  }
}
