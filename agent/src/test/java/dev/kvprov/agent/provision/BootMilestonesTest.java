package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** systemd's view of a boot, from {@code systemctl show} as it prints it on a booted VM. */
class BootMilestonesTest {
  /** What {@code systemctl show -p …} prints for the manager of an EFI VM. */
  private static final String MANAGER =
      """
      FirmwareTimestampMonotonic=3120456
      LoaderTimestampMonotonic=1045230
      InitRDTimestampMonotonic=2213004
      UserspaceTimestampMonotonic=4786112
      """;

  /** …and for the units, one block each, sshd's not started yet (kvprov runs before it). */
  private static final String UNITS =
      """
      Id=network-online.target
      ActiveEnterTimestampMonotonic=9834221

      Id=ssh.service
      ActiveEnterTimestampMonotonic=0

      Id=sshd.service
      ActiveEnterTimestampMonotonic=0
      """;

  @Test
  void theManagersAndTheUnitsTimestamps_areMilestonesSinceTheKernelStarted() {
    List<BootMilestones.Milestone> milestones = BootMilestones.parse(MANAGER, UNITS);

    assertThat(milestones)
        .containsExactly(
            new BootMilestones.Milestone("firmware", Duration.ofNanos(-3_120_456_000L)),
            new BootMilestones.Milestone("loader", Duration.ofNanos(-1_045_230_000L)),
            new BootMilestones.Milestone("kernel", Duration.ZERO),
            new BootMilestones.Milestone("initrd", Duration.ofNanos(2_213_004_000L)),
            new BootMilestones.Milestone("userspace", Duration.ofNanos(4_786_112_000L)),
            new BootMilestones.Milestone("network-online", Duration.ofNanos(9_834_221_000L)));
  }

  @Test
  void aVmWithoutFirmwareNumbers_andSshdUp_saysWhatItHas() {
    List<BootMilestones.Milestone> milestones =
        BootMilestones.parse(
            "FirmwareTimestampMonotonic=0\nLoaderTimestampMonotonic=0\n"
                + "InitRDTimestampMonotonic=0\nUserspaceTimestampMonotonic=1500000\n",
            "Id=ssh.service\nActiveEnterTimestampMonotonic=12000000\n");

    assertThat(milestones)
        .extracting(BootMilestones.Milestone::name)
        .containsExactly("kernel", "userspace", "sshd");
  }
}
