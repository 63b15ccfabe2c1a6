package dev.kvprov.agent.certs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/** The real ssh-keygen and openssl, run in a directory; a failure fails the test with stderr. */
final class Tools {
  private Tools() {}

  /** The Debian package of each tool these tests run. */
  private static final java.util.Map<String, String> PACKAGES =
      java.util.Map.of("ssh-keygen", "openssh-client", "openssl", "openssl");

  /**
   * Runs {@code command} in {@code dir} and returns its stdout; skips the test where the tool is
   * not installed (naming its package), or fails it under {@code KVPROV_REQUIRE_HOST_TOOLS}.
   */
  static String run(Path dir, String... command) throws Exception {
    dev.kvprov.fixtures.HostTools.assumeInstalled(
        command[0], PACKAGES.getOrDefault(command[0], command[0]));
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
