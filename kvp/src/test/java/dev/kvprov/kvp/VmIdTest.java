package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VmIdTest {
  @TempDir Path root;

  private void productUuid(String content) throws IOException {
    Path file = root.resolve("sys/class/dmi/id/product_uuid");
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
  }

  @Test
  void generation1_swapsTheFirstThreeGroups() throws IOException {
    productUuid("550E8400-E29B-41D4-A716-446655440000\n");

    VmId id = VmId.read(root);

    assertThat(id.value()).isEqualTo("00840e55-9be2-d441-a716-446655440000");
    assertThat(id.isKnown()).isTrue();
    assertThat(id.source()).contains("Generation 1");
  }

  @Test
  void generation2_keepsTheUuidAsStored() throws IOException {
    productUuid("550e8400-e29b-41d4-a716-446655440000");
    Files.createDirectories(root.resolve("sys/firmware/efi"));

    assertThat(VmId.read(root).value()).isEqualTo("550e8400-e29b-41d4-a716-446655440000");
  }

  @Test
  void unreadable_isAnExplicitUnknown_notAZeroUuid() {
    VmId id = VmId.read(root);

    assertThat(id.value()).isEqualTo("unknown");
    assertThat(id.isKnown()).isFalse();
    assertThat(id.source()).contains("product_uuid unreadable");
  }

  @Test
  void placeholderOrGarbage_isUnknown_sayingWhy() throws IOException {
    productUuid("00000000-0000-0000-0000-000000000000");
    assertThat(VmId.read(root).source()).contains("placeholder");

    productUuid("Not Settable\n");
    VmId garbage = VmId.read(root);
    assertThat(garbage.isKnown()).isFalse();
    assertThat(garbage.source()).contains("does not hold a UUID: not settable");
  }

  @Test
  void givenAsText_isLowerCased_andNeverSwapped() {
    VmId id = VmId.parse(" 550E8400-E29B-41D4-A716-446655440000\n", "IMDS compute.vmId");

    assertThat(id.value()).isEqualTo("550e8400-e29b-41d4-a716-446655440000");
    assertThat(id.source()).isEqualTo("IMDS compute.vmId");
  }

  @Test
  void givenAsText_placeholderGarbageOrNothing_isUnknown_sayingWhy() {
    assertThat(VmId.parse("00000000-0000-0000-0000-000000000000", "IMDS").source())
        .isEqualTo("IMDS holds the placeholder UUID 00000000-0000-0000-0000-000000000000");
    assertThat(VmId.parse("FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF", "IMDS").isKnown()).isFalse();
    assertThat(VmId.parse("unknown", "IMDS").source()).contains("does not hold a UUID");
    assertThat(VmId.parse("", "IMDS").isKnown()).isFalse();
    assertThat(VmId.parse(null, "IMDS").source()).isEqualTo("IMDS is missing");
  }

  @Test
  void swap_isItsOwnInverse() {
    String uuid = "550e8400-e29b-41d4-a716-446655440000";
    assertThat(VmId.swapGeneration1(VmId.swapGeneration1(uuid))).isEqualTo(uuid);
  }
}
