package dev.kvprov.inspect.bundle;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import org.junit.jupiter.api.Test;

class BundleConfigMaskTest {
  @Test
  void commentedSecretLines_areMaskedToo() {
    String toml =
        "[telemetry]\n"
            + "# password = \""
            + Fixtures.CANARY
            + "\"\n"
            + "  #api_token='"
            + Fixtures.CANARY
            + "'\n"
            + "endpoint = \"http://collector\" # secret = "
            + Fixtures.CANARY
            + "\n"
            + "# an ordinary comment = kept\n";

    String masked = BundleConfigMask.mask(toml);

    assertThat(masked)
        .doesNotContain(Fixtures.CANARY)
        .contains(
            "# password = \"[redacted]\"",
            "endpoint = \"http://collector\"",
            "# an ordinary comment = kept");
  }

  @Test
  void multiLineStrings_inlineTables_andUrlCredentials_areMasked_andTheRestKept() {
    String toml =
        "[imds]\n"
            + "endpoint = \"http://169.254.169.254\"\n"
            + "api_token = \"\"\"\nline-one-"
            + Fixtures.CANARY
            + "\n\"\"\"\n"
            + "otlp_headers = { Authorization = \"Bearer "
            + Fixtures.CANARY
            + "\" }\n"
            + "collector = \"https://user:"
            + Fixtures.CANARY
            + "@collector/v1?sig="
            + Fixtures.CANARY
            + "&x=1\"\n"
            + "retries = 3";

    String masked = BundleConfigMask.mask(toml);

    assertThat(masked)
        .doesNotContain(Fixtures.CANARY)
        .startsWith("[imds]\nendpoint = \"http://169.254.169.254\"\n")
        .contains(
            "api_token = \"[redacted]\"\n# [redacted]\n# [redacted]\n",
            "otlp_headers = \"[redacted]\"",
            "collector = \"https://[redacted]@collector/v1?sig=[redacted]&x=1\"")
        .endsWith("retries = 3");
  }
}
