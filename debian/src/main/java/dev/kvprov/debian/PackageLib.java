package dev.kvprov.debian;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Lays out the package's jars so that each library is there once: for each tool a thin jar (its own
 * classes; its manifest's {@code Class-Path} names its libraries in {@code lib/}, which {@code java
 * -jar} and the start-up archives honour) and one shared {@code lib/} for both tools. The shaded
 * jars of {@code agent/target} and {@code inspect-cli/target} each carried every library.
 *
 * <p>Two changes to the libraries on the way, both for start-up and size: signatures are dropped
 * (the JVM verifies a signed jar's every class on load and leaves its classes out of a
 * class-data-sharing archive; the shaded jars dropped them too), and JNA keeps its native library
 * for the package's platform only, which is also written beside, to be loaded from there ({@code
 * jna.boot.library.path}) instead of unpacked from the jar at every start.
 *
 * <p>Usage: {@code PackageLib OUT JNA_PLATFORM TOOL=SHADED_JAR,OWN_JAR,CLASS_PATH_FILE...}: writes
 * {@code OUT/share/TOOL.jar}, {@code OUT/share/lib/*.jar} and {@code OUT/native/libjnidispatch.so}.
 * CLASS_PATH_FILE is the tool's runtime class path as {@code dependency:build-classpath} writes it.
 */
final class PackageLib {
  /** A tool's inputs: where its main class is named, its own classes, its libraries in order. */
  record Tool(String name, Path shaded, Path own, List<Path> libraries) {}

  static final String NATIVE = "libjnidispatch.so";

  private static final Pattern SIGNATURE =
      Pattern.compile("META-INF/[^/]+\\.(SF|RSA|DSA|EC)", Pattern.CASE_INSENSITIVE);
  private static final Pattern JNA_NATIVE =
      Pattern.compile("com/sun/jna/([^/]+)/(lib)?jnidispatch\\.[a-z]+");
  private static final Pattern VERSION = Pattern.compile("-\\d[^/]*\\.jar$");

  private PackageLib() {}

  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    String platform = args[1];
    List<Tool> tools = new ArrayList<>();
    for (String spec : Arrays.asList(args).subList(2, args.length)) {
      String[] nameAndFiles = spec.split("=", 2);
      String[] files = nameAndFiles[1].split(",");
      List<Path> libraries =
          Arrays.stream(Files.readString(Path.of(files[2])).strip().split(":"))
              .filter(s -> !s.isEmpty())
              .map(Path::of)
              .toList();
      tools.add(new Tool(nameAndFiles[0], Path.of(files[0]), Path.of(files[1]), libraries));
    }
    write(out, platform, tools);
  }

  /** Writes the layout (see the class's comment) into {@code out}, made anew. */
  static void write(Path out, String platform, List<Tool> tools) throws IOException {
    deleteTree(out);
    Path share = out.resolve("share");
    Path lib = share.resolve("lib");
    Files.createDirectories(lib);
    Files.createDirectories(out.resolve("native"));
    Map<String, Path> byLibrary = new LinkedHashMap<>();
    for (Tool tool : tools) {
      for (Path library : tool.libraries()) {
        if (!Files.isRegularFile(library)) {
          throw new IOException(
              tool.name() + "'s library " + library + " is not a jar (build with package first)");
        }
        String name = VERSION.matcher(library.getFileName().toString()).replaceFirst("");
        Path seen = byLibrary.putIfAbsent(name, library);
        if (seen != null && !seen.getFileName().equals(library.getFileName())) {
          throw new IOException(
              "two versions of "
                  + name
                  + " ("
                  + seen.getFileName()
                  + ", "
                  + library.getFileName()
                  + "): the tools must share one");
        }
      }
      writeThinJar(tool, share.resolve(tool.name() + ".jar"));
    }
    for (Path library : byLibrary.values()) {
      copyLibrary(library, lib.resolve(library.getFileName().toString()), platform, out);
    }
    if (!Files.exists(out.resolve("native").resolve(NATIVE))) {
      throw new IOException("no JNA native library for " + platform + " among the libraries");
    }
  }

  private static void writeThinJar(Tool tool, Path target) throws IOException {
    byte[] manifest;
    try (JarFile own = new JarFile(tool.own().toFile());
        JarFile shaded = new JarFile(tool.shaded().toFile())) {
      // the shaded jar's attributes (Main-Class, Enable-Native-Access, ...): the tool runs the
      // same, only its libraries come from lib/
      Attributes main = new Attributes(shaded.getManifest().getMainAttributes());
      main.remove(Attributes.Name.CLASS_PATH);
      manifest =
          thinManifest(main, tool.libraries().stream().map(p -> "lib/" + p.getFileName()).toList());
    }
    copyEntries(tool.own(), target, manifest, name -> true);
  }

  /**
   * The thin jar's manifest, its Class-Path one jar a line: the JVM joins continuation lines
   * wherever they break, lintian reads an attribute's first line only, and a name broken at 72
   * bytes (as {@link Manifest#write} breaks it) reads to lintian as a jar the package lacks.
   */
  static byte[] thinManifest(Attributes main, List<String> classPath) throws IOException {
    StringBuilder text = new StringBuilder();
    for (var attribute : main.entrySet()) {
      text.append(line(attribute.getKey() + ": " + attribute.getValue()));
    }
    for (int i = 0; i < classPath.size(); i++) {
      // a continuation line starts with one space, which the reader drops: the second space
      // separates the entries
      text.append(line((i == 0 ? "Class-Path: " : "  ") + classPath.get(i)));
    }
    text.append("\r\n");
    return text.toString().getBytes(UTF_8);
  }

  private static String line(String line) throws IOException {
    if (line.getBytes(UTF_8).length > 72) {
      throw new IOException("a manifest line longer than 72 bytes: " + line);
    }
    return line + "\r\n";
  }

  private static void copyLibrary(Path library, Path target, String platform, Path out)
      throws IOException {
    boolean jna;
    boolean signed;
    Manifest manifest;
    Set<String> platforms = new HashSet<>();
    try (JarFile jar = new JarFile(library.toFile(), false)) {
      jna = jar.getEntry("com/sun/jna/Native.class") != null;
      signed = jar.stream().anyMatch(e -> SIGNATURE.matcher(e.getName()).matches());
      manifest = jar.getManifest();
      if (jna) {
        jar.stream()
            .map(e -> JNA_NATIVE.matcher(e.getName()))
            .filter(Matcher::matches)
            .forEach(m -> platforms.add(m.group(1)));
        ZipEntry nativeLibrary = jar.getEntry("com/sun/jna/" + platform + "/" + NATIVE);
        if (nativeLibrary != null) {
          try (InputStream in = jar.getInputStream(nativeLibrary)) {
            Files.copy(in, out.resolve("native").resolve(NATIVE));
          }
        }
      }
    }
    platforms.remove(platform);
    if (!jna && !signed) {
      Files.copy(library, target);
      return;
    }
    // the main attributes only: a signed jar's manifest also lists every entry's digest
    Manifest kept = new Manifest();
    if (manifest != null) {
      kept.getMainAttributes().putAll(manifest.getMainAttributes());
    }
    ByteArrayOutputStream keptBytes = new ByteArrayOutputStream();
    kept.write(keptBytes);
    copyEntries(
        library,
        target,
        keptBytes.toByteArray(),
        name -> {
          if (SIGNATURE.matcher(name).matches()) {
            return false;
          }
          // another platform's native library, and its directory
          return platforms.stream().noneMatch(p -> name.startsWith("com/sun/jna/" + p + "/"));
        });
  }

  /** Copies {@code from}'s entries that {@code keep} accepts, after {@code manifest}'s bytes. */
  private static void copyEntries(Path from, Path to, byte[] manifest, Predicate<String> keep)
      throws IOException {
    try (ZipFile in = new ZipFile(from.toFile());
        OutputStream file = Files.newOutputStream(to);
        JarOutputStream jar = new JarOutputStream(file)) {
      ZipEntry first = in.stream().findFirst().orElseThrow();
      ZipEntry manifestEntry = new ZipEntry(JarFile.MANIFEST_NAME);
      // the input's own time, so that a rebuild from the same jars gives the same bytes
      manifestEntry.setTime(first.getTime());
      jar.putNextEntry(manifestEntry);
      jar.write(manifest);
      jar.closeEntry();
      for (ZipEntry entry : in.stream().toList()) {
        String name = entry.getName();
        if (name.equalsIgnoreCase(JarFile.MANIFEST_NAME)
            || name.equalsIgnoreCase("META-INF/")
            || !keep.test(name)) {
          continue;
        }
        ZipEntry copy = new ZipEntry(name);
        copy.setTime(entry.getTime());
        jar.putNextEntry(copy);
        try (InputStream data = in.getInputStream(entry)) {
          data.transferTo(jar);
        }
        jar.closeEntry();
      }
    }
  }

  private static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (var paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }
}
