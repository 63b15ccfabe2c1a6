package dev.kvprov.agent.provision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.agent.SpanRecorder;
import dev.kvprov.agent.os.SystemRoot;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The span that says what local disks a VM has and where they are mounted, from udev's links. */
class ResourceDisksTest {
  @TempDir Path root;

  private SpanData record() {
    List<SpanData> spans =
        SpanRecorder.record(tracer -> ResourceDisks.record(new SystemRoot(root), tracer));
    assertThat(spans)
        .singleElement()
        .satisfies(s -> assertThat(s.getName()).isEqualTo("resource_disk"));
    return spans.get(0);
  }

  @Test
  void theResourceDiskAndNvmeLocalDisks_areNamedWithWhereTheyAreMounted() throws Exception {
    Path dev = Files.createDirectories(root.resolve("dev"));
    Files.createFile(dev.resolve("sdb"));
    Files.createFile(dev.resolve("nvme1n1"));
    Files.createFile(dev.resolve("nvme2n1"));
    Path azure = Files.createDirectories(dev.resolve("disk/azure"));
    // azure-vm-utils' link names the whole disk; its partition is what is mounted
    Files.createSymbolicLink(azure.resolve("resource"), Path.of("../../sdb"));
    Path local = Files.createDirectories(azure.resolve("local/by-index"));
    Files.createSymbolicLink(local.resolve("1"), Path.of("../../../../nvme1n1"));
    Files.createSymbolicLink(local.resolve("2"), Path.of("../../../../nvme2n1"));
    Path self = Files.createDirectories(root.resolve("proc/self"));
    Files.writeString(
        self.resolve("mounts"),
        "/dev/sda1 / ext4 rw 0 0\n/dev/sdb1 /mnt ext4 rw 0 0\n/dev/sdb10 /elsewhere ext4 rw 0 0\n"
            + "/dev/nvme1n1 /mnt/local\\0401 xfs rw 0 0\n");

    SpanData span = record();

    assertThat(span.getAttributes().get(AttributeKey.stringKey("resource.device")))
        .isEqualTo("/dev/sdb");
    assertThat(span.getAttributes().get(AttributeKey.stringKey("resource.mounted_on")))
        .isEqualTo("/mnt (sdb1)");
    assertThat(span.getAttributes().get(AttributeKey.longKey("local_nvme.count"))).isEqualTo(2L);
    assertThat(span.getAttributes().get(AttributeKey.stringArrayKey("local_nvme.devices")))
        .containsExactly("/dev/nvme1n1", "/dev/nvme2n1");
    assertThat(span.getAttributes().get(AttributeKey.stringArrayKey("local_nvme.mounted_on")))
        .containsExactly("/mnt/local 1", "not mounted");
  }

  @Test
  void aVmWithoutLocalDisks_saysSo() {
    SpanData span = record();

    assertThat(span.getAttributes().get(AttributeKey.stringKey("resource.device")))
        .isEqualTo("none");
    assertThat(span.getAttributes().get(AttributeKey.longKey("local_nvme.count"))).isZero();
  }
}
