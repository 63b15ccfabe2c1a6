package dev.kvprov.agent.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** The real ssh-keygen and openssl, run in a directory; a failure fails the test with stderr. */
final class Tools {
  private Tools() {}

  /** Runs {@code command} in {@code dir} and returns its stdout. */
  static String run(Path dir, String... command) throws Exception {
    Process process =
        new ProcessBuilder(List.of(command))
            .directory(dir.toFile())
            .redirectError(dir.resolve("stderr.txt").toFile())
            .start();
    process.getOutputStream().close();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    int exit = process.waitFor();
    assertThat(exit)
        .as(
            String.join(" ", command)
                + ": "
                + java.nio.file.Files.readString(dir.resolve("stderr.txt")))
        .isZero();
    return out;
  }

  /** {@code der} in PEM armour with {@code label}, as openssl and ssh-keygen read it. */
  static String pem(String label, byte[] der) {
    return "-----BEGIN "
        + label
        + "-----\n"
        + java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
            .encodeToString(der)
        + "\n-----END "
        + label
        + "-----\n";
  }
}
