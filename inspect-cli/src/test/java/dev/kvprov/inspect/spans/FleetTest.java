package dev.kvprov.inspect.spans;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class FleetTest {
  private static VmSummary vm(int i, VmSummary.Verdict verdict, String reason, String... steps) {
    List<VmSummary.Step> s =
        java.util.Arrays.stream(steps)
            .map(n -> new VmSummary.Step(n, Duration.ofMillis(10 + i % 100), false, true))
            .toList();
    return new VmSummary(
        "vm-" + i,
        "vm-" + i + ".xml",
        verdict,
        reason,
        Optional.of(Duration.ofMillis(100 + i % 1000)),
        s.stream().findFirst(),
        s);
  }

  @Test
  void failures_groupByVerdictAndReason_largestFirst_namingTheFirstThree() {
    Fleet fleet = new Fleet();
    fleet.add(vm(1, VmSummary.Verdict.FAILED, "IMDS down"));
    fleet.add(vm(2, VmSummary.Verdict.UNFINISHED, "still in imds.fetch"));
    for (int i = 3; i < 8; i++) {
      fleet.add(vm(i, VmSummary.Verdict.FAILED, "useradd failed"));
    }
    fleet.add(vm(8, VmSummary.Verdict.OK, ""));

    assertThat(fleet.failures())
        .containsExactly(
            new Fleet.Failure(
                VmSummary.Verdict.FAILED, "useradd failed", 5, List.of("vm-3", "vm-4", "vm-5")),
            new Fleet.Failure(VmSummary.Verdict.FAILED, "IMDS down", 1, List.of("vm-1")),
            new Fleet.Failure(
                VmSummary.Verdict.UNFINISHED, "still in imds.fetch", 1, List.of("vm-2")));
    assertThat(fleet.allOk()).isFalse();
    assertThat(fleet.verdicts())
        .containsEntry(VmSummary.Verdict.FAILED, 6)
        .containsEntry(VmSummary.Verdict.OK, 1);
  }

  @Test
  void stateStaysBounded_whateverTheVmsBring() {
    // every VM a reason and step names of its own, as damaged or hostile exports may give
    Fleet fleet = new Fleet();
    for (int i = 0; i < 20_000; i++) {
      fleet.add(vm(i, VmSummary.Verdict.FAILED, "reason " + i, "step-" + i, "imds.fetch"));
    }

    assertThat(fleet.vms()).isEqualTo(20_000);
    assertThat(fleet.failures()).hasSize(Fleet.MAX_REASONS);
    assertThat(fleet.reasonsLeftOut()).isEqualTo(20_000 - Fleet.MAX_REASONS);
    assertThat(fleet.steps()).hasSize(Fleet.MAX_STEPS);
    assertThat(fleet.steps().get(1).name()).isEqualTo("imds.fetch");
    assertThat(fleet.steps().get(1).vms()).isEqualTo(20_000);
    assertThat(fleet.stepsLeftOut()).isEqualTo(20_000 - (Fleet.MAX_STEPS - 1));
  }
}
