package dev.kvprov.agent;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The agent's packages, top to bottom: what runs (the commands, the demo, the simulator), the run
 * that orders the steps, what the platform gives (IMDS, wireserver, certificates, Ignition, the
 * state directory), the steps, the provisioning media, and the base every layer may use
 * (configuration, HTTP, JSON trees, logging, the operating system). An arrow back up, or a cycle
 * between packages, fails the build: a newcomer can read a layer without the ones above it.
 */
@AnalyzeClasses(packages = "dev.kvprov.agent", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
  @ArchTest
  static final ArchRule layers =
      layeredArchitecture()
          .consideringOnlyDependenciesInLayers()
          .layer("commands")
          .definedBy("dev.kvprov.agent", "dev.kvprov.agent.demo..", "dev.kvprov.agent.sim..")
          .layer("run")
          .definedBy("dev.kvprov.agent.provision")
          .layer("platform")
          .definedBy(
              "dev.kvprov.agent.imds..",
              "dev.kvprov.agent.wireserver..",
              "dev.kvprov.agent.certs..",
              "dev.kvprov.agent.ignition..",
              "dev.kvprov.agent.net..",
              "dev.kvprov.agent.state..")
          .layer("steps")
          .definedBy("dev.kvprov.agent.provision.steps..")
          .layer("media")
          .definedBy("dev.kvprov.agent.ovf..")
          .layer("base")
          .definedBy(
              "dev.kvprov.agent.config..",
              "dev.kvprov.agent.http..",
              "dev.kvprov.agent.json..",
              "dev.kvprov.agent.logging..",
              "dev.kvprov.agent.os..")
          .whereLayer("commands")
          .mayNotBeAccessedByAnyLayer()
          .whereLayer("run")
          .mayOnlyBeAccessedByLayers("commands")
          .whereLayer("platform")
          .mayOnlyBeAccessedByLayers("commands", "run")
          .whereLayer("steps")
          .mayOnlyBeAccessedByLayers("commands", "run", "platform")
          .whereLayer("media")
          .mayOnlyBeAccessedByLayers("commands", "run", "platform", "steps")
          .whereLayer("base")
          .mayOnlyBeAccessedByLayers("commands", "run", "platform", "steps", "media");

  @ArchTest
  static final ArchRule noCycles =
      slices().matching("dev.kvprov.agent.(**)").should().beFreeOfCycles();
}
