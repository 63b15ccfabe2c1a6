package dev.kvprov.otel;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.fixtures.Trials;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProvisioningReportTest {
  private static final String VM = "00840e55-9be2-d441-a716-446655440000";
  private static final Instant AT = Instant.parse("2026-11-22T05:00:00.123456Z");

  @Test
  void success_hasThePlatformsFieldsInOrder() {
    assertThat(ProvisioningReport.success("kvprov/0.1.0", VM, AT).encode())
        .isEqualTo(
            "result=success|agent=kvprov/0.1.0|pps_type=None|vm_id="
                + VM
                + "|timestamp=2026-11-22T05:00:00.123Z");
  }

  @Test
  void failure_quotesFieldsHoldingPipesQuotesOrLineBreaks_andEndsWithTheDocumentationUrl() {
    Map<String, String> supporting = new LinkedHashMap<>();
    supporting.put("step", "user.create");
    supporting.put("stderr", "useradd: group 'a|b' \"missing\"\nline two");

    String encoded =
        ProvisioningReport.failure("User creation failed", "kvprov/0.1.0", VM, AT, supporting)
            .encode();

    assertThat(encoded)
        .isEqualTo(
            "result=error|reason=User creation failed|agent=kvprov/0.1.0|step=user.create"
                + "|\"stderr=useradd: group 'a|b' \"\"missing\"\"\nline two\"|pps_type=None|vm_id="
                + VM
                + "|timestamp=2026-11-22T05:00:00.123Z"
                + "|documentation_url=https://aka.ms/linuxprovisioningerror");
    ProvisioningReport back = ProvisioningReport.parse(encoded);
    assertThat(back.get("stderr")).contains("useradd: group 'a|b' \"missing\"\nline two");
    assertThat(back.isSuccess()).isFalse();
    assertThat(back.get("reason")).contains("User creation failed");
  }

  @Test
  void aReportTooLongForOneRecord_shortensSupportingDataOnly_longestFirst() {
    Map<String, String> supporting = new LinkedHashMap<>();
    supporting.put("step", "ssh.keys");
    supporting.put("detail", "x".repeat(3000));
    supporting.put("hint", "é".repeat(300));

    ProvisioningReport report =
        ProvisioningReport.failure("SSH key setup failed", "kvprov/0.1.0", VM, AT, supporting);
    String encoded = report.encode();

    assertThat(encoded.getBytes(UTF_8).length).isLessThanOrEqualTo(1022);
    ProvisioningReport back = ProvisioningReport.parse(encoded);
    for (String essential :
        List.of("result", "reason", "agent", "vm_id", "timestamp", "documentation_url")) {
      assertThat(back.get(essential)).as(essential).isEqualTo(report.get(essential));
    }
    assertThat(back.get("step")).contains("ssh.keys");
    assertThat(back.get("detail").orElseThrow()).endsWith("...").startsWith("xxxx");
    assertThat(back.get("hint").orElseThrow()).startsWith("éé");
  }

  @Test
  void manySupportingFields_areDroppedFromTheEnd_whenShorteningIsNotEnough() {
    Map<String, String> supporting = new LinkedHashMap<>();
    for (int i = 0; i < 200; i++) {
      supporting.put("k" + i, "v" + i);
    }

    String encoded =
        ProvisioningReport.failure("Too much", "kvprov/0.1.0", VM, AT, supporting).encode();

    assertThat(encoded.getBytes(UTF_8).length).isLessThanOrEqualTo(1022);
    ProvisioningReport back = ProvisioningReport.parse(encoded);
    assertThat(back.get("k0")).contains("v0");
    assertThat(back.get("k199")).isEmpty();
    assertThat(back.get("documentation_url")).contains(ProvisioningReport.DOCUMENTATION_URL);
  }

  @Test
  void parse_readsCloudInitsAndAzureInitsReports_inAnyFieldOrder() {
    ProvisioningReport cloudInit =
        ProvisioningReport.parse(
            "result=error|reason=failure to find DHCP interface|agent=Cloud-Init/23.4"
                + "|interface=eth0|pps_type=None|vm_id="
                + VM
                + "|timestamp=2024-01-01T00:00:00.000000+00:00"
                + "|documentation_url=https://aka.ms/linuxprovisioningerror");
    ProvisioningReport azureInit =
        ProvisioningReport.parse(
            "result=success|agent=Azure-Init/0.1.1|pps_type=None|vm_id="
                + VM
                + "|timestamp=2024-06-01T10:00:00Z");

    assertThat(cloudInit.get("reason")).contains("failure to find DHCP interface");
    assertThat(cloudInit.get("interface")).contains("eth0");
    assertThat(cloudInit.isSuccess()).isFalse();
    assertThat(azureInit.isSuccess()).isTrue();
    assertThat(azureInit.get("agent")).contains("Azure-Init/0.1.1");
  }

  @Test
  void parse_rejectsWhatIsNotOneRow() {
    assertThatThrownBy(() -> ProvisioningReport.parse(""))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ProvisioningReport.parse("a=1\nb=2"))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ProvisioningReport.parse("\"unterminated"))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void fieldsOf_readsEveryRowAsTheCsvParserDoes() {
    // rows made of the characters that matter to the dialect, and any others
    Trials.run(
        2000,
        r -> {
          StringBuilder row = new StringBuilder();
          for (int i = Trials.size(r, 0, 40); i > 0; i--) {
            row.append(
                (char)
                    (r.nextInt(3) == 0
                        ? Trials.anyChar(r)
                        : Trials.oneOf(r, '|', '|', '=', ' ', 'a', '"', '\n', '\r', '\t')));
          }
          String value = row.toString();
          Object expected;
          try {
            expected = ProvisioningReport.csvFields(value);
          } catch (IllegalArgumentException e) {
            expected = IllegalArgumentException.class;
          }
          Object actual;
          try {
            actual = ProvisioningReport.fieldsOf(value);
          } catch (IllegalArgumentException e) {
            actual = IllegalArgumentException.class;
          }
          assertThat(actual).as("fields of %s", value).isEqualTo(expected);
        });
  }

  @Test
  void encodeThenParse_keepsEveryFieldThatFits() {
    Trials.run(
        300,
        r ->
            encodeThenParseKeepsEveryFieldThatFits(
                Trials.anyString(r, 255), Trials.anyString(r, 255), Trials.anyString(r, 255)));
  }

  private static void encodeThenParseKeepsEveryFieldThatFits(
      String reason, String detail, String extra) {
    Map<String, String> supporting = new LinkedHashMap<>();
    supporting.put("detail", detail);
    supporting.put("extra", extra);
    String safeReason = reason;
    ProvisioningReport report =
        ProvisioningReport.failure(
            safeReason.length() > 200 ? safeReason.substring(0, 200) : safeReason,
            "kvprov/0.1.0",
            VM,
            AT,
            supporting);
    if (report.fields().stream()
        .anyMatch(f -> f.value().chars().anyMatch(c -> Character.isSurrogate((char) c)))) {
      return; // unpaired surrogates have no UTF-8 form; the generator makes them, writers never get
      // them
    }

    String encoded = report.encode();
    ProvisioningReport back = ProvisioningReport.parse(encoded);

    assertThat(encoded.getBytes(UTF_8).length).isLessThanOrEqualTo(1022);
    assertThat(back.get("reason")).isEqualTo(report.get("reason"));
    assertThat(back.get("timestamp")).isEqualTo(report.get("timestamp"));
    if (back.get("detail").isPresent() && !back.get("detail").get().endsWith("...")) {
      assertThat(back.get("detail")).isEqualTo(report.get("detail"));
    }
  }
}
