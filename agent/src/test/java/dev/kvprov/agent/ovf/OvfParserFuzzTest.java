package dev.kvprov.agent.ovf;

import com.code_intelligence.jazzer.junit.FuzzTest;

/**
 * ovf-env.xml as anyone who controls the provisioning media may write it, by a coverage-guided
 * fuzzer (with Jazzer's sanitizers watching for XXE and the like): a parsed environment or an
 * {@link OvfException}, nothing else. {@code ./mvnw verify} replays the committed seeds ({@code
 * OvfParserFuzzTestInputs}); {@code .ci/run} fuzzes for a bounded time.
 */
class OvfParserFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void parse_ofAnyBytes_givesAnEnvironmentOrAnOvfException(byte[] document) {
    try {
      OvfParser.parse(document).clearSecrets();
    } catch (OvfException expected) {
      // refused in plain words: what the agent reports
    }
  }
}
