package dev.kvprov.debian;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The .deb that {@code ./mvnw verify} built: what it holds, and that it installs into a throw-away
 * root (this machine's /usr through an overlay, a copy of /etc) and runs there: {@code kvprov
 * --version}, {@code kvp --help}, a whole {@code kvprov demo}, {@code systemd-analyze verify} of
 * the unit, and a purge.
 */
class PackageIT {
  static final Path DEB = Path.of(System.getProperty("kvprov.deb"));
  static final Path REPO = Path.of(System.getProperty("kvprov.repo"));
  static final String CANARY = "never-log-me";

  @TempDir Path work;

  record Run(int exit, String output) {}

  private static Run run(List<String> command, long timeoutSeconds) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    process.getOutputStream().close();
    String output = new String(process.getInputStream().readAllBytes(), UTF_8);
    assertThat(process.waitFor(timeoutSeconds, TimeUnit.SECONDS))
        .as("%s finished", command)
        .isTrue();
    return new Run(process.exitValue(), output);
  }

  /** The output of the install script, by its "== step" headers. */
  private static Map<String, String> sections(String output) {
    Map<String, String> sections = new LinkedHashMap<>();
    String current = "";
    StringBuilder text = new StringBuilder();
    for (String line : output.split("\n", -1)) {
      if (line.startsWith("== ")
          && !line.startsWith("== span")
          && !line.startsWith("== kvprov demo:")
          && !line.startsWith("== provisioning")
          && !line.startsWith("== PROVISIONING")
          && !line.startsWith("== what")
          && !line.startsWith("== where")) {
        sections.put(current, text.toString());
        current = line.substring(3);
        text.setLength(0);
      } else {
        text.append(line).append('\n');
      }
    }
    sections.put(current, text.toString());
    return sections;
  }

  @Test
  void thePackage_holdsWhatTheUnitStarts_andDependsOnAJava17Runtime() throws Exception {
    need(Files.isExecutable(Path.of("/usr/bin/dpkg-deb")), "no dpkg-deb here; skipped");
    String contents = run(List.of("dpkg-deb", "--contents", DEB.toString()), 60).output();
    String conffiles = run(List.of("dpkg-deb", "--info", DEB.toString(), "conffiles"), 60).output();
    String unit = Files.readString(REPO.resolve("systemd/kvprov.service"));

    String execStart =
        unit.lines().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow();
    String launcher = execStart.substring("ExecStart=".length()).split(" ")[0];
    assertThat(launcher).isEqualTo("/usr/bin/kvprov");
    assertThat(contents)
        .containsPattern("(?m)^-rwxr-xr-x root/root .* \\." + launcher + "$")
        .containsPattern("(?m)^-rwxr-xr-x root/root .* \\./usr/bin/kvp$")
        .containsPattern("(?m)^-rw-r--r-- root/root .* \\./usr/share/kvprov/kvprov\\.jar$")
        .containsPattern("(?m)^-rw-r--r-- root/root .* \\./usr/share/kvprov/kvp\\.jar$")
        .containsPattern("(?m)^-rw-r--r-- root/root .* \\./lib/systemd/system/kvprov\\.service$")
        .containsPattern(
            "(?m)^-rw-r--r-- root/root .* \\./lib/systemd/system/kvprov-report-failure@\\.service$")
        .containsPattern("(?m)^-rw-r--r-- root/root .* \\./usr/share/man/man1/kvprov\\.1\\.gz$")
        .containsPattern("(?m)^-rw-r--r-- root/root .* \\./usr/share/man/man1/kvp\\.1\\.gz$")
        .containsPattern(
            "(?m)^-rw-r--r-- root/root .* \\./usr/share/bash-completion/completions/kvprov$")
        .containsPattern(
            "(?m)^-rw-r--r-- root/root .* \\./usr/share/bash-completion/completions/kvp$")
        .containsPattern("(?m)^-rw-r--r-- root/root .* \\./usr/share/doc/kvprov/changelog\\.gz$")
        // state is made by the postinst (0700, which lintian would flag in the package's data)
        .doesNotContain("./var/lib/kvprov");
    assertThat(conffiles.strip()).isEqualTo("/etc/kvprov/kvprov.toml");
    assertThat(run(List.of("dpkg-deb", "--info", DEB.toString()), 60).output())
        .containsPattern("(?m)^ .* prerm +#!/bin/sh$")
        .containsPattern("(?m)^ .* postrm +#!/bin/sh$");
    assertThat(field("Depends"))
        .startsWith("default-jre-headless (>= 2:1.17) | java17-runtime-headless");
    // an SSH server is suggested only: recommending it installs one (and, through its own
    // Recommends, xauth and X11 libraries) on images that chose to have none
    assertThat(field("Recommends")).doesNotContain("ssh");
    assertThat(field("Suggests")).contains("openssh-server");
    // What the package installs is what the repository holds.
    Path extracted = extracted();
    assertThat(extracted.resolve("lib/systemd/system/kvprov.service"))
        .hasSameTextualContentAs(REPO.resolve("systemd/kvprov.service"));
    assertThat(extracted.resolve("lib/systemd/system/kvprov-report-failure@.service"))
        .hasSameTextualContentAs(REPO.resolve("systemd/kvprov-report-failure@.service"));
    assertThat(extracted.resolve("etc/kvprov/kvprov.toml"))
        .hasSameTextualContentAs(REPO.resolve("debian/src/deb/etc/kvprov.toml"));
    // the changelog's latest entry is this package's version
    String changelog =
        run(
                List.of(
                    "gzip",
                    "-dc",
                    extracted.resolve("usr/share/doc/kvprov/changelog.gz").toString()),
                60)
            .output();
    assertThat(changelog).startsWith("kvprov (" + field("Version").strip() + ") ");
    for (String script :
        List.of(
            "start-up-archive",
            "cds-archive",
            "aot-cache",
            "lib/launch.sh",
            "lib/jvm/common.options",
            "lib/jvm/kvp.options",
            "lib/jvm/kvprov.options")) {
      assertThat(extracted.resolve("usr/share/kvprov/" + script))
          .hasSameTextualContentAs(REPO.resolve("bin/" + script));
    }
  }

  @Test
  void eachLibraryIsThereOnce_andJnaForThePackagesArchitectureOnly() throws Exception {
    need(Files.isExecutable(Path.of("/usr/bin/dpkg-deb")), "no dpkg-deb here; skipped");
    assertThat(field("Architecture").strip()).isEqualTo("amd64");
    Path share = extracted().resolve("usr/share/kvprov");
    // the tools' thin jars name their libraries in the shared lib/, each there
    List<String> named = new ArrayList<>();
    for (String tool : List.of("kvprov.jar", "kvp.jar")) {
      try (JarFile jar = new JarFile(share.resolve(tool).toFile())) {
        String classPath = jar.getManifest().getMainAttributes().getValue("Class-Path");
        for (String entry : classPath.split(" ")) {
          assertThat(share.resolve(entry)).as(tool + " names " + entry).isRegularFile();
          named.add(entry);
        }
        assertThat(jar.stream().map(ZipEntry::getName))
            .as(tool + " holds its own classes, no library's")
            .noneMatch(n -> n.startsWith("com/fasterxml/") || n.startsWith("org/bouncycastle/"));
      }
    }
    List<String> libraries;
    try (var files = Files.list(share.resolve("lib"))) {
      // lib/ also holds the launchers' launch.sh and jvm/
      libraries =
          files
              .map(p -> "lib/" + p.getFileName())
              .filter(n -> n.endsWith(".jar"))
              .sorted()
              .toList();
    }
    assertThat(libraries).containsExactlyInAnyOrderElementsOf(new TreeSet<>(named));
    assertThat(libraries.stream().map(n -> n.replaceFirst("-\\d[^/]*\\.jar$", "")))
        .as("one version of each library")
        .doesNotHaveDuplicates();
    // JNA's native part: amd64's, beside the jar, and no other platform's in it
    assertThat(extracted().resolve("usr/lib/kvprov/libjnidispatch.so")).isRegularFile();
    for (String library : libraries) {
      try (JarFile jar = new JarFile(share.resolve(library).toFile())) {
        assertThat(jar.stream().map(ZipEntry::getName))
            .as(library)
            .filteredOn(n -> n.contains("jnidispatch"))
            .allMatch(n -> n.equals("com/sun/jna/linux-x86-64/libjnidispatch.so"));
        assertThat(jar.stream().map(ZipEntry::getName))
            .as(library + " unsigned")
            .noneMatch(n -> n.matches("META-INF/[^/]+\\.(SF|RSA|DSA|EC)"));
      }
    }
  }

  private static String field(String name) throws Exception {
    return run(List.of("dpkg-deb", "--field", DEB.toString(), name), 60).output();
  }

  private Path extracted() throws Exception {
    Path extracted = work.resolve("extracted");
    if (!Files.isDirectory(extracted)) {
      assertThat(run(List.of("dpkg-deb", "-x", DEB.toString(), extracted.toString()), 60).exit())
          .isZero();
    }
    return extracted;
  }

  @Test
  void everyManPage_rendersWithoutAWarning_andNamesItsCommand() throws Exception {
    need(Files.isExecutable(Path.of("/usr/bin/dpkg-deb")), "no dpkg-deb here; skipped");
    need(Files.isExecutable(Path.of("/usr/bin/man")), "no man here (man-db); skipped");
    Path pages = extracted().resolve("usr/share/man/man1");
    List<String> names;
    try (var files = Files.list(pages)) {
      names = files.map(p -> p.getFileName().toString()).sorted().toList();
    }
    // the roots, subcommands of both, and a subcommand's own subcommand
    assertThat(names)
        .contains(
            "kvprov.1.gz",
            "kvprov-provision.1.gz",
            "kvprov-report-ready.1.gz",
            "kvp.1.gz",
            "kvp-list.1.gz",
            "kvp-tree.1.gz")
        .hasSizeGreaterThan(25);
    for (String name : names) {
      String command = name.replace(".1.gz", "");
      // man's own warnings (groff's) on stderr, the page thrown away, as lintian asks for them
      Run warnings =
          run(
              List.of(
                  "sh",
                  "-c",
                  "LC_ALL=C.UTF-8 MANROFFSEQ= MANWIDTH=120 man --warnings -E UTF-8 -l -Tutf8 -Z"
                      + " \"$0\" > /dev/null",
                  pages.resolve(name).toString()),
              60);
      assertThat(warnings).as(name).isEqualTo(new Run(0, ""));
      Run page =
          run(List.of("env", "MANWIDTH=80", "man", "-l", pages.resolve(name).toString()), 60);
      assertThat(page.exit()).as(name).isZero();
      assertThat(page.output()).as(name).contains("NAME", command + " - ", "SYNOPSIS", "OPTIONS");
    }
    // examples keep their lines and indentation at 80 columns, as --help prints them: one
    // longer than the page overflows rather than wrapping into the next
    String kvp =
        run(List.of("env", "MANWIDTH=80", "man", "-l", pages.resolve("kvp.1.gz").toString()), 60)
            .output();
    assertThat(kvp)
        .containsPattern("(?m)^ +kvp report {24}did provisioning succeed, and if not, why$")
        .containsPattern(
            "(?m)^ +kvp doctor --root /mnt/rescued {4}a rescued disk.s pools and archives checked$");
    String metadata =
        run(
                List.of(
                    "env",
                    "MANWIDTH=80",
                    "man",
                    "-l",
                    pages.resolve("kvprov-metadata.1.gz").toString()),
                60)
            .output();
    assertThat(metadata)
        .containsPattern(
            "(?m)^( +)kvprov metadata --hostname /run/kvprov/hostname \\\\\n\\1    --attributes /run/metadata/kvprov$");
    // what --help prints under the options (exit statuses, examples) is in the pages too
    for (String root : List.of("kvprov.1.gz", "kvp.1.gz", "kvprov-provision.1.gz")) {
      assertThat(run(List.of("man", "-l", pages.resolve(root).toString()), 60).output())
          .as(root)
          .contains("NOTES", "Exit status: ", "Examples:");
    }
  }

  @Test
  void bashCompletion_isValid_andCompletesCommandsAndOptions() throws Exception {
    need(Files.isExecutable(Path.of("/usr/bin/dpkg-deb")), "no dpkg-deb here; skipped");
    Path completions = extracted().resolve("usr/share/bash-completion/completions");
    for (String tool : List.of("kvprov", "kvp")) {
      Run syntax = run(List.of("bash", "-n", completions.resolve(tool).toString()), 60);
      assertThat(syntax.exit()).as(syntax.output()).isZero();
    }
    assertThat(complete(completions.resolve("kvp"), "kvp l")).isEqualTo("list");
    assertThat(complete(completions.resolve("kvp"), "kvp list --js")).isEqualTo("--json");
    assertThat(complete(completions.resolve("kvprov"), "kvprov report "))
        .isEqualTo("ready failure");
    assertThat(complete(completions.resolve("kvprov"), "kvprov pro")).isEqualTo("provision");
  }

  /**
   * What bash offers for {@code line} (the cursor at its end), through the function the script
   * registers with {@code complete}, as bash-completion calls it on TAB.
   */
  private static String complete(Path script, String line) throws Exception {
    String command = line.split(" ")[0];
    String program =
        String.join(
            "\n",
            "source \"$1\"",
            "function=$(complete -p " + command + " | sed -E 's/.* -F ([^ ]+) .*/\\1/')",
            "read -ra COMP_WORDS <<< \"$2\"",
            "[[ $2 == *' ' ]] && COMP_WORDS+=('')",
            "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))",
            "COMP_LINE=$2 COMP_POINT=${#2}",
            // outside readline, picocli's compopt call says so on stderr: not an answer
            "\"$function\" "
                + command
                + " \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\" 2> /dev/null",
            "echo \"${COMPREPLY[*]}\"");
    Run run = run(List.of("bash", "-c", program, "complete", script.toString(), line), 60);
    assertThat(run.exit()).as(run.output()).isZero();
    return run.output().strip();
  }

  @Test
  void lintian_findsNothing() throws Exception {
    need(
        Files.isExecutable(Path.of("/usr/bin/lintian")),
        "no lintian here (apt-get install lintian); skipped");
    Run lintian =
        run(
            List.of(
                "lintian",
                "--pedantic",
                "--display-info",
                "--fail-on",
                "error,warning,info,pedantic",
                DEB.toString()),
            600);
    // as root it says so on stderr; any tag is a line "E: ", "W: ", "I: ", "P: "...
    assertThat(lintian.output()).doesNotContainPattern("(?m)^[A-Z]: ");
    assertThat(lintian.exit()).as(lintian.output()).isZero();
  }

  /** Skips with a message, unless CI says the test must run (KVPROV_REQUIRE_PACKAGE_TEST). */
  private static void need(boolean condition, String message) {
    if (System.getenv("KVPROV_REQUIRE_PACKAGE_TEST") != null) {
      assertThat(condition).as(message + " (and KVPROV_REQUIRE_PACKAGE_TEST is set)").isTrue();
    }
    Assumptions.assumeTrue(condition, message);
  }

  @Test
  void installsIntoAThrowAwayRoot_runsThere_andPurgesClean() throws Exception {
    need(
        "root".equals(System.getProperty("user.name")),
        "installing into a throw-away root needs root (mount namespace, overlay, chroot); skipped");
    need(Files.isExecutable(Path.of("/usr/bin/dpkg")), "no dpkg here; skipped");
    boolean hostHadKvprov = Files.exists(Path.of("/usr/share/kvprov"));
    Path script = REPO.resolve("debian/src/test/sh/install-in-throwaway-root.sh");

    Run install = run(List.of(script.toString(), DEB.toString(), work.toString()), 600);

    assertThat(install.exit()).as(install.output()).isZero();
    Map<String, String> step = sections(install.output());
    assertThat(step.get("dpkg --install")).contains("Setting up kvprov");
    // the postinst's JVM runs (the archives) leave nothing in root's home or /tmp of the image
    assertThat(step.get("left behind")).isEmpty();
    assertThat(step.get("dpkg --status")).contains("Status: install ok installed");
    assertThat(step.get("files"))
        .contains("700 " + work.resolve("root/var/lib/kvprov"))
        .contains("kvprov.jsa", "kvprov.stamp", "kvprov.jvm", "kvp.jsa", "kvp.stamp", "kvp.jvm")
        .doesNotContain(".log")
        // JNA's native part is the package's (/usr/lib/kvprov), not unpacked into the cache
        .doesNotContain("jna");
    // both tools, as root and as a user: nothing new in /tmp, the homes, the package's directories
    assertThat(step.get("runs leave nothing behind")).isEmpty();
    // JDK 17 here: class-data-sharing archives, named with the JVM they were built for, which
    // the launchers pass and the JVM maps, our classes coming from the archive's own layer
    String java = Path.of("/usr/bin/java").toRealPath().toString();
    assertThat(step.get("archives"))
        .contains("cds " + java)
        .contains("-XX:SharedArchiveFile=/var/cache/kvprov/kvprov.jsa")
        .contains("-XX:SharedArchiveFile=/var/cache/kvprov/kvp.jsa");
    String loaded = step.get("archives").strip();
    assertThat(Integer.parseInt(loaded.substring(loaded.lastIndexOf('\n') + 1)))
        .as("classes kvp loads from its archive")
        .isGreaterThan(100);
    // nothing but java on the PATH: the launchers start no other program before it
    assertThat(step.get("launcher with java alone on the PATH"))
        .contains("-XX:SharedArchiveFile=/var/cache/kvprov/kvprov.jsa")
        .contains("-XX:SharedArchiveFile=/var/cache/kvprov/kvp.jsa")
        .contains("-Djna.boot.library.path=/usr/lib/kvprov")
        .contains("kvprov 0.1.0", "kvp 0.1.0")
        .doesNotContain("not found");
    String aot = step.get("aot");
    if (aot.contains("skipped")) {
      System.err.println("PackageIT: the AOT cache path " + aot.strip());
    } else {
      String[] switched = aot.split("-- another JVM than the stamp's: no archive option\n");
      assertThat(switched[0])
          .contains("kvp.aot", "kvprov.aot", "aot /usr/lib/jvm/")
          .contains("-XX:AOTCache=/var/cache/kvprov/kvp.aot")
          .contains("kvp 0.1.0")
          .doesNotContain("kvp.jsa\n");
      // the stamp: the kind and the JVM (its time and the jar's are the stamps' own: launch.sh)
      assertThat(switched[1])
          .startsWith("0\nkvp 0.1.0\n")
          .containsPattern("cds " + Pattern.quote(java) + "\n$");
    }
    assertThat(step.get("systemctl enabled")).contains("/lib/systemd/system/kvprov.service");
    assertThat(step.get("kvprov --version").strip()).isEqualTo("kvprov 0.1.0");
    assertThat(step.get("kvp --help")).contains("Usage: kvp [-hV] [COMMAND]", "Examples:");
    assertThat(step.get("kvprov demo"))
        .contains("result=success")
        .contains("exit status:      0")
        .doesNotContain(CANARY);
    assertThat(step.get("kvp report")).contains("result     success");
    assertThat(step.get("dpkg --purge"))
        .contains("Purging configuration files for kvprov")
        .contains("var/cache/kvprov': No such file or directory")
        .contains("var/lib/kvprov': No such file or directory");
    assertThat(step).containsKey("done");
    assertThat(Files.exists(Path.of("/usr/share/kvprov")))
        .as("this machine's /usr is untouched")
        .isEqualTo(hostHadKvprov);
    String verify = step.get("systemd-analyze verify");
    if (verify.contains("skipped")) {
      // UnitFileTest says so too, and fails where CI requires the check
      System.err.println("PackageIT: " + verify.strip());
    } else {
      assertThat(verify.strip()).isEqualTo("verified");
    }
  }

  @Test
  void everyUnitInTheRepository_isInThePackage() throws Exception {
    need(Files.isExecutable(Path.of("/usr/bin/dpkg-deb")), "no dpkg-deb here; skipped");
    String contents = run(List.of("dpkg-deb", "--contents", DEB.toString()), 60).output();
    try (var units = Files.list(REPO.resolve("systemd"))) {
      for (Path unit : units.toList()) {
        assertThat(contents).contains("./lib/systemd/system/" + unit.getFileName());
      }
    }
    // the boot test's drop-ins lift the units' Azure guards: never in the package
    try (var testOnly = Files.list(REPO.resolve("debian/src/test/nspawn"))) {
      for (Path file : testOnly.toList()) {
        assertThat(contents).doesNotContain("/" + file.getFileName() + "\n");
      }
    }
    assertThat(contents).doesNotContain(".service.d/");
  }
}
