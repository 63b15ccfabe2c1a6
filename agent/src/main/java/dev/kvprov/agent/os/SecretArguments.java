package dev.kvprov.agent.os;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which arguments of a command line telemetry must not show. Each program's own options that take a
 * secret are known by program ({@code usermod -p HASH}); another program's {@code -p} means
 * something else ({@code systemctl show -p Id}) and is shown. A crypt hash is hidden wherever it
 * appears: it can be cracked offline.
 */
final class SecretArguments {
  static final String MASK = "[redacted]";

  /** The options whose value is a secret, by program (shadow-utils' spellings). */
  private static final Map<String, Set<String>> SECRET_OPTIONS =
      Map.of(
          "useradd", Set.of("-p", "--password"),
          "usermod", Set.of("-p", "--password"),
          "groupadd", Set.of("-p", "--password"),
          "groupmod", Set.of("-p", "--password"));

  /**
   * A crypt(3) hash ({@code $6$salt$…}, {@code $y$…}), alone or after {@code name:} or {@code =}.
   */
  private static final Pattern CRYPT_HASH =
      Pattern.compile("(^|[:=])\\$(1|2[abxy]?|5|6|7|y|gy|sha1|md5)\\$[./A-Za-z0-9$=,]+");

  private SecretArguments() {}

  static List<String> shown(List<String> argv) {
    Set<String> secret =
        argv.isEmpty() ? Set.of() : SECRET_OPTIONS.getOrDefault(program(argv.get(0)), Set.of());
    List<String> shown = new ArrayList<>(argv.size());
    boolean valueIsSecret = false;
    for (String argument : argv) {
      boolean hidden = valueIsSecret || CRYPT_HASH.matcher(argument).find();
      valueIsSecret = false;
      if (!hidden && secret.contains(argument)) {
        valueIsSecret = true;
      } else if (!hidden && argument.startsWith("--")) {
        int equals = argument.indexOf('=');
        if (equals > 0 && secret.contains(argument.substring(0, equals))) {
          argument = argument.substring(0, equals + 1) + MASK;
        }
      }
      shown.add(hidden ? MASK : argument);
    }
    return shown;
  }

  private static String program(String command) {
    Path name = Path.of(command).getFileName();
    return name == null ? command : name.toString();
  }
}
