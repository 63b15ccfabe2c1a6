package dev.kvprov.inspect;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * {@code kvp}'s packages, top to bottom: the start-up archive's training run, the commands, then
 * what they use: the bundle, the renderers, the boots and timelines built from spans, the pool read
 * into items, the writers with the model they read items into, and plain text and JSON. An arrow
 * back up, or a cycle between packages, fails the build: a newcomer can read a layer without the
 * ones above it.
 */
@AnalyzeClasses(
    packages = "dev.kvprov.inspect",
    importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule layers =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("training")
          .definedBy("dev.kvprov.inspect")
          .layer("cli")
          .definedBy("dev.kvprov.inspect.cli..")
          .layer("bundle")
          .definedBy("dev.kvprov.inspect.bundle..")
          .layer("render")
          .definedBy("dev.kvprov.inspect.render..")
          .layer("spans")
          .definedBy("dev.kvprov.inspect.spans..")
          .layer("pool")
          .definedBy("dev.kvprov.inspect.pool..")
          .layer("writers")
          .definedBy("dev.kvprov.inspect.writers..")
          .layer("text")
          .definedBy("dev.kvprov.inspect.text..")
          .whereLayer("training")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("cli")
          .mayOnlyBeAccessedByLayers("training")
          .whereLayer("bundle")
          .mayOnlyBeAccessedByLayers("training", "cli")
          .whereLayer("render")
          .mayOnlyBeAccessedByLayers("training", "cli")
          .whereLayer("spans")
          .mayOnlyBeAccessedByLayers("training", "cli", "render")
          .whereLayer("pool")
          .mayOnlyBeAccessedByLayers("training", "cli", "bundle", "render", "spans")
          .whereLayer("writers")
          .mayOnlyBeAccessedByLayers("training", "cli", "bundle", "render", "spans", "pool")
          .whereLayer("text")
          .mayOnlyBeAccessedByLayers(
              "training", "cli", "bundle", "render", "spans", "pool", "writers");

  @ArchTest
  static final ArchRule noCycles =
      slices().matching("dev.kvprov.inspect.(*)..").should().beFreeOfCycles();

  /**
   * picocli is the commands' business: below them a part is given plain values (a path, a boot
   * number), so it can be made and tested without a command line.
   */
  @ArchTest
  static final ArchRule onlyTheCommandsParseArguments =
      noClasses()
          .that()
          .resideOutsideOfPackages("dev.kvprov.inspect", "dev.kvprov.inspect.cli..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("picocli..");
}
