package dev.kvprov.debian;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipEntry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PackageLibTest {
  @TempDir Path work;

  /** Writes a jar: its manifest's text (or none), then entries name → content. */
  private Path jar(String name, String manifest, Map<String, String> entries) throws IOException {
    Path jar = work.resolve("in").resolve(name);
    Files.createDirectories(jar.getParent());
    try (OutputStream file = Files.newOutputStream(jar);
        JarOutputStream out = new JarOutputStream(file)) {
      if (manifest != null) {
        out.putNextEntry(new ZipEntry(JarFile.MANIFEST_NAME));
        out.write(manifest.getBytes(UTF_8));
        out.closeEntry();
      }
      for (var entry : entries.entrySet()) {
        out.putNextEntry(new ZipEntry(entry.getKey()));
        out.write(entry.getValue().getBytes(UTF_8));
        out.closeEntry();
      }
    }
    return jar;
  }

  private static List<String> names(Path jar) throws IOException {
    try (JarFile file = new JarFile(jar.toFile())) {
      return file.stream().map(ZipEntry::getName).toList();
    }
  }

  private PackageLib.Tool tool(String name, String main, List<Path> libraries) throws IOException {
    Path shaded =
        jar(
            name + "-shaded.jar",
            "Manifest-Version: 1.0\r\nMain-Class: "
                + main
                + "\r\nBuild-Jdk-Spec: 17\r\nEnable-Native-Access: ALL-UNNAMED\r\n\r\n",
            Map.of());
    Path own =
        jar(
            name + "-own.jar",
            "Manifest-Version: 1.0\r\n\r\n",
            Map.of("dev/" + name + "/Main.class", "own"));
    return new PackageLib.Tool(name, shaded, own, libraries);
  }

  @Test
  void eachLibraryOnce_theThinJarsNameThem_jnaForOnePlatform_noSignatures() throws Exception {
    Path jna =
        jar(
            "jna-5.18.1.jar",
            "Manifest-Version: 1.0\r\n\r\n",
            Map.of(
                "com/sun/jna/Native.class", "jna",
                "com/sun/jna/linux-x86-64/libjnidispatch.so", "x86-64 native",
                "com/sun/jna/linux-aarch64/libjnidispatch.so", "aarch64 native",
                "com/sun/jna/win32-x86-64/jnidispatch.dll", "windows native"));
    Path signed =
        jar(
            "bcprov-jdk18on-1.87.jar",
            "Manifest-Version: 1.0\r\nMulti-Release: true\r\n\r\n"
                + "Name: org/bouncycastle/A.class\r\nSHA-256-Digest: abc=\r\n\r\n",
            Map.of(
                "META-INF/BC1024KE.SF", "signature file",
                "META-INF/BC1024KE.DSA", "signature",
                "org/bouncycastle/A.class", "bc"));
    // a name long enough that a 72-byte manifest line would break inside it
    Path shared =
        jar("opentelemetry-exporter-otlp-common-1.63.0.jar", null, Map.of("o/O.class", "o"));
    Path out = work.resolve("out");

    PackageLib.write(
        out,
        "linux-x86-64",
        List.of(
            tool("kvprov", "dev.kvprov.agent.Main", List.of(jna, shared, signed)),
            tool("kvp", "dev.kvprov.inspect.cli.KvpCommand", List.of(shared, jna))));

    Path lib = out.resolve("share/lib");
    try (var files = Files.list(lib)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder(
              "jna-5.18.1.jar",
              "bcprov-jdk18on-1.87.jar",
              "opentelemetry-exporter-otlp-common-1.63.0.jar");
    }
    assertThat(lib.resolve("opentelemetry-exporter-otlp-common-1.63.0.jar"))
        .hasSameBinaryContentAs(shared);
    assertThat(names(lib.resolve("jna-5.18.1.jar")))
        .contains("com/sun/jna/Native.class", "com/sun/jna/linux-x86-64/libjnidispatch.so")
        .noneMatch(n -> n.contains("aarch64") || n.contains("win32"));
    assertThat(out.resolve("native/libjnidispatch.so")).hasContent("x86-64 native");
    assertThat(names(lib.resolve("bcprov-jdk18on-1.87.jar")))
        .contains("org/bouncycastle/A.class")
        .noneMatch(n -> n.endsWith(".SF") || n.endsWith(".DSA"));
    try (JarFile bc = new JarFile(lib.resolve("bcprov-jdk18on-1.87.jar").toFile())) {
      assertThat(bc.getManifest().getEntries()).isEmpty();
      assertThat(bc.getManifest().getMainAttributes().getValue("Multi-Release")).isEqualTo("true");
    }

    try (JarFile kvprov = new JarFile(out.resolve("share/kvprov.jar").toFile())) {
      Attributes main = kvprov.getManifest().getMainAttributes();
      assertThat(main.getValue(Attributes.Name.MAIN_CLASS)).isEqualTo("dev.kvprov.agent.Main");
      assertThat(main.getValue(Attributes.Name.CLASS_PATH))
          .isEqualTo(
              "lib/jna-5.18.1.jar lib/opentelemetry-exporter-otlp-common-1.63.0.jar"
                  + " lib/bcprov-jdk18on-1.87.jar");
      assertThat(main.getValue("Build-Jdk-Spec")).isEqualTo("17");
      // JDK 24+ lets JNA load its native part without a warning only when the manifest says so
      assertThat(main.getValue("Enable-Native-Access")).isEqualTo("ALL-UNNAMED");
      assertThat(kvprov.getEntry("dev/kvprov/Main.class")).isNotNull();
      // what lintian reads: every line's jar whole (no name broken across lines)
      String text =
          new String(
              kvprov.getInputStream(kvprov.getEntry(JarFile.MANIFEST_NAME)).readAllBytes(), UTF_8);
      assertThat(text).contains("Class-Path: lib/jna-5.18.1.jar\r\n");
      assertThat(text.lines()).allMatch(l -> l.length() <= 72);
      assertThat(text.lines().filter(l -> l.startsWith("  ")))
          .containsExactly(
              "  lib/opentelemetry-exporter-otlp-common-1.63.0.jar",
              "  lib/bcprov-jdk18on-1.87.jar");
    }
    try (JarFile kvp = new JarFile(out.resolve("share/kvp.jar").toFile())) {
      assertThat(kvp.getManifest().getMainAttributes().getValue(Attributes.Name.CLASS_PATH))
          .isEqualTo("lib/opentelemetry-exporter-otlp-common-1.63.0.jar lib/jna-5.18.1.jar");
    }
  }

  @Test
  void twoVersionsOfOneLibrary_failTheBuild() throws Exception {
    Path jna =
        jar("jna-5.18.1.jar", null, Map.of("com/sun/jna/linux-x86-64/libjnidispatch.so", "n"));
    Path older = jar("commons-io-2.11.0.jar", null, Map.of("a", "a"));
    Path newer = jar("commons-io-2.20.0.jar", null, Map.of("a", "b"));
    List<PackageLib.Tool> tools = new ArrayList<>();
    tools.add(tool("kvprov", "M", List.of(jna, newer)));
    tools.add(tool("kvp", "K", List.of(older)));

    assertThatThrownBy(() -> PackageLib.write(work.resolve("out"), "linux-x86-64", tools))
        .hasMessage(
            "two versions of commons-io (commons-io-2.20.0.jar, commons-io-2.11.0.jar): the tools"
                + " must share one");
  }

  @Test
  void thinManifest_readsBackAsItsClassPath() throws Exception {
    Attributes main = new Attributes();
    main.put(Attributes.Name.MANIFEST_VERSION, "1.0");
    List<String> classPath = List.of("lib/a-1.jar", "lib/b-2.jar", "lib/c-3.jar");

    Manifest manifest =
        new Manifest(new java.io.ByteArrayInputStream(PackageLib.thinManifest(main, classPath)));

    assertThat(manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH))
        .isEqualTo("lib/a-1.jar lib/b-2.jar lib/c-3.jar");
  }
}
