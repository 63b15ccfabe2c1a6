package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.otel.KvpRecordFormat;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Comparator;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The user names a bundle must not show, and their replacement: the image's accounts, and every
 * name the records give, in whichever writer's shape. A run that failed before the admin user was
 * made leaves the name only in the records, so {@code /etc/passwd} alone is not enough.
 */
public final class UserNames {
  /** A name as the records give it; possessive, so that a word after it is never half taken. */
  private static final String NAME = "([A-Za-z0-9_][A-Za-z0-9_.-]{0,63}+)";

  /** Where a name stands in a record, whoever wrote it. */
  private static final List<Pattern> PLACES =
      List.of(
          // kvprov's span attributes: Attr: user=NAME
          Pattern.compile(
              "(?:^|\\| )Attr: (?:user|user\\.name|username|userName|UserName|admin_?user"
                  + "|admin_username|adminUsername)="
                  + NAME
                  + "(?= \\| |$)"),
          // kvprov's checks and messages, and failure reports: user name 'NAME', user "NAME"
          Pattern.compile("(?i)\\buser(?: name)? ['\"]" + NAME + "['\"]"),
          // the metadata (adminUsername), the media (UserName) and reports, as JSON or k=v; not
          // "adminUsername: the user name is missing", whose words are no name
          Pattern.compile(
              "\"(?:adminUsername|admin_username|UserName|userName|username)\"\\s*:\\s*\""
                  + NAME
                  + "\""),
          Pattern.compile(
              "\\b(?:adminUsername|admin_username|UserName|userName|username)=[\"']?" + NAME),
          // the media's XML, any namespace prefix
          Pattern.compile("<(?:[\\w.-]+:)?UserName>\\s*" + NAME + "\\s*</"),
          // a home directory
          Pattern.compile("/home/" + NAME));

  /** kvprov's record of a command it ran, e.g. {@code useradd,-m,NAME,}. */
  private static final Pattern COMMAND_ARGS =
      Pattern.compile(
          KvpRecordFormat.ATTR
              + ": process\\.command_args:string\\[\\]=((?:[^|\\\\]|\\\\.)*?)(?= \\| |$)");

  private static final Set<String> USER_COMMANDS =
      Set.of("useradd", "usermod", "userdel", "passwd", "chage", "adduser", "deluser");

  private final Set<String> names = new LinkedHashSet<>();

  /** Accounts of the system (uid below 1000): not people, and their names are everywhere. */
  private final Set<String> system = new HashSet<>(Set.of("root"));

  private Pattern pattern;

  private List<String> people;

  /**
   * The image's accounts in {@code passwd}: uid 1000 and up, but nobody.
   *
   * @throws IOException when it cannot be read
   */
  void learnAccounts(Path passwd) throws IOException {
    for (String line : Files.readAllLines(passwd, UTF_8)) {
      String[] f = line.split(":", -1);
      if (f.length > 2 && f[2].matches("\\d{1,9}") && !f[0].isEmpty()) {
        long uid = Long.parseLong(f[2]);
        if (uid >= 1000 && uid < 65534) {
          add(f[0]);
        } else {
          system.add(f[0]);
        }
      }
    }
  }

  /** Every name {@code text} (a record's key or value) gives. */
  void learn(String text) {
    for (Pattern place : PLACES) {
      Matcher m = place.matcher(text);
      while (m.find()) {
        add(m.group(1));
      }
    }
    Matcher command = COMMAND_ARGS.matcher(text);
    while (command.find()) {
      String[] args = command.group(1).split(",");
      if (args.length > 1) {
        String program = args[0].substring(args[0].lastIndexOf('/') + 1);
        String last = args[args.length - 1];
        if (USER_COMMANDS.contains(program) && !last.startsWith("-")) {
          add(last);
        }
      }
    }
  }

  private void add(String name) {
    // a trailing dot or dash is the sentence's, not the name's
    String n = name.replaceAll("[.-]+$", "");
    if (!n.isEmpty() && !n.matches("\\d+") && n.length() <= 64) {
      names.add(n);
      pattern = null;
      people = null;
    }
  }

  int size() {
    return (int) names.stream().filter(n -> !system.contains(n)).count();
  }

  /** {@code text} with every name replaced by its hash, whole names only. */
  String redact(String text) {
    if (pattern == null) {
      List<String> people = people();
      pattern =
          people.isEmpty()
              ? Pattern.compile("(?!)")
              : Pattern.compile(
                  "(?<![A-Za-z0-9_])(?:"
                      + people.stream().map(Pattern::quote).collect(Collectors.joining("|"))
                      + ")(?![A-Za-z0-9_])");
    }
    Matcher m = pattern.matcher(text);
    if (!m.find()) {
      return text;
    }
    StringBuilder b = new StringBuilder(text.length());
    do {
      m.appendReplacement(b, Matcher.quoteReplacement(replacement(m.group())));
    } while (m.find());
    m.appendTail(b);
    return b.toString();
  }

  /**
   * A name cut between two texts: its first {@code head} characters end the one, the rest start the
   * other.
   */
  record Cut(String name, int head) {}

  /**
   * The name cut between the end of {@code before} and the start of {@code after} (two records a
   * writer split a value over), whole names only; null when none is. The longest name wins.
   */
  Cut cutBetween(String before, String after) {
    for (String name : people()) {
      for (int head = name.length() - 1; head >= 1; head--) {
        int start = before.length() - head;
        int end = name.length() - head;
        if (start >= 0
            && before.startsWith(name.substring(0, head), start)
            && after.startsWith(name.substring(head))
            && (start == 0 || !wordCharacter(before.charAt(start - 1)))
            && (end == after.length() || !wordCharacter(after.charAt(end)))) {
          return new Cut(name, head);
        }
      }
    }
    return null;
  }

  private static boolean wordCharacter(char c) {
    return c == '_' || c < 128 && Character.isLetterOrDigit(c);
  }

  /** The names to replace, longest first: a system account's name is not a person's. */
  private List<String> people() {
    if (people == null) {
      people =
          names.stream()
              .filter(n -> !system.contains(n))
              .sorted(Comparator.comparingInt(String::length).reversed())
              .toList();
    }
    return people;
  }

  /** What stands for {@code name}: the same everywhere, so one user can be followed through. */
  static String replacement(String name) {
    return "user-" + hash(name);
  }

  public static String hash(String name) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(name.getBytes(UTF_8)))
          .substring(0, 10);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
