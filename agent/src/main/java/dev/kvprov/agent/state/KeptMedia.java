package dev.kvprov.agent.state;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.agent.os.AtomicFiles;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.Secret;
import dev.kvprov.kvp.IoErrors;
import dev.kvprov.otel.KvprovAttributes;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * What the platform gave that is read again after provisioning, kept in the state directory, root's
 * alone (0600): {@code ovf-env.xml} without the password and the custom data (the guest agent reads
 * it), the custom data decoded ({@code custom_data}) and IMDS's user data decoded ({@code
 * user_data}), as WALinuxAgent kept them. Their contents never reach telemetry: the span says
 * sizes. Keeping them is bookkeeping: a failure is a warning, never a failed boot.
 */
public final class KeptMedia {
  /** The files, by name, in the state directory; {@code kvprov clean --logs} removes them. */
  public static final String OVF_ENV = "ovf-env.xml";

  public static final String CUSTOM_DATA = "custom_data";
  public static final String USER_DATA = "user_data";

  private KeptMedia() {}

  /**
   * Keeps what there is.
   *
   * @param media the provisioning media, or null when there were none
   * @param userData IMDS's {@code userData} (base64), if any
   */
  public static void keep(
      Path stateDirectory, OvfEnvironment media, Optional<String> userData, Tracer tracer) {
    Span span = tracer.spanBuilder("media.keep").startSpan();
    try (Scope ignored = span.makeCurrent()) {
      // An earlier VM's copies (an image captured without clean --logs) must not pass for this
      // one's: what this VM was not given is removed.
      forget(stateDirectory.resolve(OVF_ENV), media == null, span);
      forget(
          stateDirectory.resolve(CUSTOM_DATA), media == null || media.customData().isEmpty(), span);
      forget(
          stateDirectory.resolve(USER_DATA), userData.isEmpty() || userData.get().isBlank(), span);
      if (media != null) {
        write(stateDirectory.resolve(OVF_ENV), media.withoutSecrets().getBytes(UTF_8), span);
        span.setAttribute("ovf_env.bytes", (long) media.withoutSecrets().length());
        if (media.customData().isPresent()) {
          byte[] decoded = decoded(media.customData().get(), span);
          try {
            write(stateDirectory.resolve(CUSTOM_DATA), decoded, span);
            span.setAttribute("custom_data.bytes", (long) decoded.length);
          } finally {
            Arrays.fill(decoded, (byte) 0);
          }
        }
      }
      if (userData.isPresent() && !userData.get().isBlank()) {
        byte[] decoded = decode(userData.get().toCharArray(), span, "user data");
        write(stateDirectory.resolve(USER_DATA), decoded, span);
        span.setAttribute("user_data.bytes", (long) decoded.length);
      }
    } finally {
      span.end();
    }
  }

  private static byte[] decoded(Secret secret, Span span) {
    char[] chars = secret.copy();
    try {
      return decode(chars, span, "custom data");
    } finally {
      Arrays.fill(chars, '\0');
    }
  }

  /** Base64, as the platform sends it; anything else kept as it came, and said. */
  private static byte[] decode(char[] chars, Span span, String what) {
    ByteBuffer encoded = UTF_8.encode(CharBuffer.wrap(chars));
    byte[] bytes = new byte[encoded.remaining()];
    encoded.get(bytes);
    Arrays.fill(encoded.array(), (byte) 0);
    try {
      byte[] decoded = Base64.getMimeDecoder().decode(bytes);
      Arrays.fill(bytes, (byte) 0);
      return decoded;
    } catch (IllegalArgumentException e) {
      span.setAttribute(KvprovAttributes.WARNING, "the " + what + " is not base64: kept as given");
      return bytes;
    }
  }

  private static void forget(Path file, boolean notGiven, Span span) {
    if (!notGiven) {
      return;
    }
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      span.setAttribute(
          KvprovAttributes.WARNING,
          file.getFileName() + " of an earlier VM not removed: " + IoErrors.reason(e));
    }
  }

  private static void write(Path file, byte[] content, Span span) {
    try {
      AtomicFiles.write(file, content, "rw-------", -1, -1);
    } catch (IOException e) {
      span.setAttribute(
          KvprovAttributes.WARNING, file.getFileName() + " not kept: " + IoErrors.reason(e));
    }
  }
}
