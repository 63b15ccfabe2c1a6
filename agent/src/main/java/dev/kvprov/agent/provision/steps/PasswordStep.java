package dev.kvprov.agent.provision.steps;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.agent.os.Shadow;
import dev.kvprov.agent.ovf.Secret;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import org.apache.commons.codec.digest.Sha2Crypt;

/** The admin password: set (as a SHA-512 crypt hash) when one was given, else locked. */
final class PasswordStep implements Step.Action {
  private final Machine machine;
  private final String user;
  private final Optional<Secret> password;

  PasswordStep(Machine machine, Target target) {
    this.machine = machine;
    this.user = target.user();
    this.password = target.password();
  }

  @Override
  public void run(Span span) throws ProvisioningException, IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of("usermod"));
    argv.addAll(machine.root.prefixArguments());
    String current = Shadow.hash(machine.root, user);
    if (password.isEmpty()) {
      span.setAttribute("password", "locked");
      if (current.startsWith("!") || current.equals("*")) {
        span.setAttribute("changed", false);
        return;
      }
      argv.addAll(List.of("-L", user));
      machine.run(argv);
      return;
    }
    span.setAttribute("password", "set");
    char[] chars = password.get().copy();
    byte[] bytes = new String(chars).getBytes(UTF_8);
    String hash;
    try {
      if (current.startsWith("$6$") && Sha2Crypt.sha512Crypt(bytes, current).equals(current)) {
        span.setAttribute("changed", false); // already this password: keep the hash (and its salt)
        return;
      }
      hash = Sha2Crypt.sha512Crypt(bytes);
    } finally {
      Arrays.fill(chars, '\0');
      Arrays.fill(bytes, (byte) 0);
    }
    // Not even the hash goes on a command line (any local user can read those in /proc): on the
    // live system chpasswd reads it from stdin; in an image root the shadow file is edited.
    if (machine.root.isLive()) {
      machine.run(List.of("chpasswd", "-e"), (user + ":" + hash + "\n").getBytes(UTF_8));
    } else if (!Shadow.setHash(machine.root, user, hash)) {
      throw machine.failure("no shadow entry for " + user);
    }
  }
}
