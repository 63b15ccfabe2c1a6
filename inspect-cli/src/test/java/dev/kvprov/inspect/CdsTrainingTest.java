package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.kvp.PoolFile;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The training run must load what real runs load: a clean pool with every writer's kinds. */
class CdsTrainingTest {
  @TempDir Path dir;

  @Test
  void theTrainingPool_holdsEveryWriter_andDecodesCleanly() throws Exception {
    PoolFile.builder().directory(dir).build().append(CdsTraining.records());

    CliRun list = CliRun.of("list", "--json", "--dir", dir.toString());
    CliRun decode = CliRun.of("decode", "--dir", dir.toString());
    CliRun tree = CliRun.of("tree", "--json", "--dir", dir.toString());

    assertThat(list.exit()).as(list.out()).isZero();
    assertThat(list.jsonLines().stream().map(i -> i.path("writer").asText()).distinct())
        .containsExactlyInAnyOrder("kvprov", "cloud-init", "azure-init", "report");
    assertThat(list.jsonLines()).allSatisfy(i -> assertThat(i.path("problems")).isEmpty());
    assertThat(decode.exit()).isZero();
    assertThat(decode.out()).contains("dmesg line\ndmesg line\n");
    assertThat(tree.json().findValuesAsText("writer"))
        .contains("kvprov", "cloud-init", "azure-init");
    // the training run walks the failure paths too: one failed span of each writer that has them
    assertThat(
            tree.json().findParents("status").stream()
                .filter(n -> n.path("status").asText().equals("error"))
                .map(n -> n.path("writer").asText() + " " + n.path("name").asText()))
        .containsExactlyInAnyOrder(
            "kvprov provision",
            "cloud-init init-local/azure-ds",
            "azure-init azure_init:provision");
  }

  @Test
  void theTrainingRun_loadsListsModel_andTheLocksBindingAhead() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        Runtime.getRuntime().availableProcessors() > 1, "a second core");
    Path classList = dir.resolve("classes.lst");
    Process training =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:off",
                "-XX:DumpLoadedClassList=" + classList,
                "-cp",
                System.getProperty("java.class.path"),
                CdsTraining.class.getName())
            .redirectErrorStream(true)
            .start();
    String out = new String(training.getInputStream().readAllBytes(), UTF_8);
    assertThat(training.waitFor()).as(out).isZero();

    // what the archive is dumped from: the classes, then the lambdas' proxies by their owner
    assertThat(java.nio.file.Files.readAllLines(classList))
        .contains(
            "dev/kvprov/inspect/cli/ListCommand",
            "dev/kvprov/inspect/cli/CommandModels",
            "dev/kvprov/inspect/cli/ItemFilter",
            "dev/kvprov/inspect/cli/InstantConverter",
            "dev/kvprov/inspect/cli/LockBinding")
        .anyMatch(line -> line.startsWith("@lambda-proxy dev/kvprov/inspect/cli/LockBinding "));
  }

  @Test
  void theTrainingRun_finishes_andLeavesNothingBehind() throws Exception {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
    java.util.function.Supplier<java.util.Set<Path>> leftovers =
        () -> {
          try (var files = java.nio.file.Files.list(tmp)) {
            return files
                .filter(f -> f.getFileName().toString().startsWith("kvp-cds-training"))
                .collect(java.util.stream.Collectors.toSet());
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        };
    java.util.Set<Path> before = leftovers.get();

    CdsTraining.main(new String[0]);

    assertThat(leftovers.get()).isEqualTo(before);
  }
}
