package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.LoadedClasses;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgGroupSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The models built in code ({@link CommandModels}): a short {@code kvp set} or {@code kvp append}
 * reads no annotations, and what is built in code says what the annotations say.
 */
class CommandModelsTest {
  /** picocli's annotation types, and its reflection over annotated fields and methods. */
  private static final List<String> ANNOTATION_MODEL =
      List.of(
          "picocli.CommandLine$Command",
          "picocli.CommandLine$Option",
          "picocli.CommandLine$Parameters",
          "picocli.CommandLine$Mixin",
          "picocli.CommandLine$Spec",
          "picocli.CommandLine$Model$TypedMember");

  /** Dynamic proxies JNA makes for itself while binding the lock calls (seen: 2). */
  private static final int PROXIES_OF_JNA = 2;

  @TempDir Path dir;

  @Test
  void set_onALivePool_readsNoAnnotations() throws Exception {
    List<String> loaded =
        classesLoaded("set", "--file", dir.resolve(".kvp_pool_1").toString(), "Ticket", "1");

    assertThat(loaded).contains("dev.kvprov.inspect.cli.ItemCommands$Set");
    assertThat(loaded).doesNotContainAnyElementsOf(ANNOTATION_MODEL);
  }

  @Test
  void append_onALivePool_readsNoAnnotations() throws Exception {
    Path lines = Files.writeString(dir.resolve("lines"), "a=1\nb=2\n");

    List<String> loaded =
        classesLoaded(
            "append", "--file", dir.resolve(".kvp_pool_1").toString(), "--from", lines.toString());

    assertThat(loaded).contains("dev.kvprov.inspect.cli.AppendCommand");
    assertThat(loaded).doesNotContainAnyElementsOf(ANNOTATION_MODEL);
  }

  @Test
  void list_onALivePool_readsNoAnnotations() throws Exception {
    Path pool = dir.resolve(".kvp_pool_1");
    dev.kvprov.kvp.PoolFile.builder()
        .file(pool)
        .build()
        .append(java.util.List.of(new dev.kvprov.kvp.KvpRecord("Ticket", "1")));

    LoadedClasses run = LoadedClasses.ofKvp(dir, "list", "--file", pool.toString());

    assertThat(run.output()).contains("Ticket");
    assertThat(run.classes()).contains("dev.kvprov.inspect.cli.ListCommand");
    assertThat(run.classes()).doesNotContainAnyElementsOf(ANNOTATION_MODEL);
    // an annotation read at run time is a proxy class the JDK makes; JNA's own are the only ones
    assertThat(run.classes().stream().filter(c -> c.contains(".$Proxy")))
        .hasSizeLessThanOrEqualTo(PROXIES_OF_JNA);
  }

  @Test
  void theClassesLookedFor_arePicocliClasses() throws Exception {
    // a name misspelt here, or renamed by picocli, would make the tests above pass for nothing
    for (String name : ANNOTATION_MODEL) {
      assertThat(Class.forName(name, false, CommandLine.class.getClassLoader())).isNotNull();
    }
  }

  @Test
  void poolOptions_builtInCode_sayWhatTheirAnnotationsSay() {
    CommandSpec annotated = CommandSpec.forAnnotatedObject(new PoolOptions());
    CommandSpec inCode = CommandModels.poolOptions(CommandSpec.create(), new PoolOptions());

    assertThat(describe(inCode)).isEqualTo(describe(annotated));
  }

  @Test
  void itemFilter_builtInCode_saysWhatItsAnnotationsSay() {
    CommandSpec annotated = CommandSpec.forAnnotatedObject(new ItemFilter());
    CommandSpec inCode = CommandModels.itemFilter(CommandSpec.create(), new ItemFilter());

    assertThat(describe(inCode)).isEqualTo(describe(annotated));
  }

  @Test
  void bootChoice_builtInCode_saysWhatItsAnnotationsSay() {
    CommandSpec annotated = CommandSpec.forAnnotatedObject(new BootChoice());
    CommandSpec inCode = CommandModels.bootChoice(CommandSpec.create(), new BootChoice());

    assertThat(describe(inCode)).isEqualTo(describe(annotated));
  }

  @Test
  void theReadCommands_onALivePool_readNoAnnotations() throws Exception {
    try (var demo = getClass().getResourceAsStream("/pools/demo-ok.kvp")) {
      Files.copy(demo, dir.resolve(".kvp_pool_1"));
    }

    for (String command : List.of("tree", "timeline", "report", "dump")) {
      LoadedClasses run = LoadedClasses.ofKvp(dir, command, "--dir", dir.toString());

      assertThat(run.classes()).as(command).doesNotContainAnyElementsOf(ANNOTATION_MODEL);
    }
  }

  @Test
  void everySubcommand_isFoundByTheNameItHas() {
    for (String name : KvpCommand.commandLine().getSubcommands().keySet()) {
      assertThat(KvpCommand.commandLine(new String[] {name}).getSubcommands())
          .as(name)
          .containsOnlyKeys(name);
    }
  }

  /** Every option, grouped or not, and every group: what help, man pages and completion show. */
  private static List<String> describe(CommandSpec spec) {
    List<String> lines = new ArrayList<>();
    for (OptionSpec o : spec.options()) {
      lines.add(
          String.join(",", o.names())
              + " label="
              + o.paramLabel()
              + " type="
              + o.type().getName()
              + " arity="
              + o.arity()
              + " default="
              + o.defaultValue()
              + " required="
              + o.required()
              + " group="
              + (o.group() == null ? "-" : o.group().synopsis())
              + " description="
              + String.join("|", o.description()));
    }
    for (ArgGroupSpec g : spec.argGroups()) {
      lines.add("group " + g.synopsis() + " exclusive=" + g.exclusive() + " " + g.multiplicity());
    }
    return lines;
  }

  /** Runs kvp in a JVM of its own; the classes it loaded, by name. */
  private List<String> classesLoaded(String... args) throws Exception {
    return LoadedClasses.ofKvp(dir, args).classes();
  }
}
