package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/** {@link KvpTelemetry#warmUp}: a throwaway telemetry that leaves no trace anywhere. */
class KvpTelemetryWarmUpTest {
  @Test
  void printsNothingAndChangesNothingJvmWide() {
    Logger sdkLogger = Logger.getLogger("io.opentelemetry");
    int handlers = sdkLogger.getHandlers().length;
    boolean parents = sdkLogger.getUseParentHandlers();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    System.setOut(new PrintStream(out, true, UTF_8));
    System.setErr(new PrintStream(out, true, UTF_8));
    try {
      KvpTelemetry.warmUp();
      KvpTelemetry.warmUp(); // as often as asked
    } finally {
      System.setOut(stdout);
      System.setErr(stderr);
    }
    assertThat(out.toString(UTF_8)).isEmpty();
    assertThat(sdkLogger.getHandlers()).hasSize(handlers);
    assertThat(sdkLogger.getUseParentHandlers()).isEqualTo(parents);
  }
}
