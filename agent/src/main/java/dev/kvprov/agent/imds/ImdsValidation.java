package dev.kvprov.agent.imds;

import dev.kvprov.agent.os.Names;
import java.util.ArrayList;
import java.util.List;

/**
 * Checks what the agent will act on: a user name and a host name by the agent's one set of rules
 * ({@link Names}), and the paths of SSH keys. Metadata is untrusted input like any other. The keys
 * themselves are not checked here: one the agent cannot use fails the SSH keys step alone ({@link
 * KeyData}), not the whole metadata.
 */
final class ImdsValidation {

  private ImdsValidation() {}

  /**
   * Whether the instance has the sections kvprov reads: when it has, what {@link #problems} finds
   * is about values in them, each naming its field.
   */
  static boolean shaped(ImdsInstance instance) {
    return instance != null && instance.compute() != null && instance.compute().osProfile() != null;
  }

  /** What is wrong with the instance, one sentence each; empty when it can be used. */
  static List<String> problems(ImdsInstance instance) {
    List<String> problems = new ArrayList<>();
    if (instance == null || instance.compute() == null) {
      problems.add("the metadata has no compute section");
      return problems;
    }
    ImdsInstance.OsProfile profile = instance.compute().osProfile();
    if (profile == null) {
      problems.add("the metadata has no compute.osProfile");
      return problems;
    }
    Names.userProblem(profile.adminUsername()).ifPresent(p -> problems.add("adminUsername: " + p));
    Names.hostProblem(profile.computerName()).ifPresent(p -> problems.add("computerName: " + p));
    for (ImdsInstance.PublicKey key : instance.compute().publicKeys()) {
      String path = key.path();
      if (path != null
          && (Names.hasControlCharacter(path)
              || !path.startsWith("/")
              || path.contains("/../")
              || path.endsWith("/.."))) {
        problems.add("a public key's path is not an absolute path: " + quoted(path));
      }
    }
    return problems;
  }

  private static String quoted(String s) {
    if (s == null) {
      return "(missing)";
    }
    String cut = s.length() > 80 ? s.substring(0, 80) + "…" : s;
    return "'" + cut.replaceAll("\\p{Cntrl}", "?") + "'";
  }
}
