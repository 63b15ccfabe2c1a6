package dev.kvprov.agent.config;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class KeySuggestionsTest {
  @Test
  void aTypo_suggestsTheKey() {
    assertThat(KeySuggestions.forKey("imds.total_retry_timout_secs"))
        .isEqualTo("; did you mean imds.total_retry_timeout_secs?");
    assertThat(KeySuggestions.forKey("imds.raed_timeout_secs"))
        .isEqualTo("; did you mean imds.read_timeout_secs?");
    assertThat(KeySuggestions.forKey("ssh.Query-Sshd-Config"))
        .isEqualTo("; did you mean ssh.query_sshd_config?");
    assertThat(KeySuggestions.forKey("telemetry.kvp_directry"))
        .isEqualTo("; did you mean telemetry.kvp_directory?");
  }

  @Test
  void aKeyInTheWrongSection_suggestsEverySectionThatHasIt() {
    assertThat(KeySuggestions.forKey("ssh.read_timeout_secs"))
        .isEqualTo("; did you mean imds.read_timeout_secs or wireserver.read_timeout_secs?");
    assertThat(KeySuggestions.forKey("provisioning.backends"))
        .isEqualTo(
            "; did you mean hostname_provisioners.backends, user_provisioners.backends"
                + " or password_provisioners.backends?");
    assertThat(KeySuggestions.forKey("telemetry.report_in_progres"))
        .isEqualTo("; did you mean wireserver.report_in_progress?");
  }

  @Test
  void nothingNear_suggestsNothing() {
    assertThat(KeySuggestions.forKey("imds.x")).isEmpty();
    assertThat(KeySuggestions.forKey("imds.proxy")).isEmpty();
    assertThat(KeySuggestions.forKey("colour")).isEmpty();
    assertThat(KeySuggestions.forSection("log")).isEmpty();
  }

  @Test
  void aSectionTypo_suggestsTheSection_aShortOneOnlyForASingleSlip() {
    assertThat(KeySuggestions.forSection("imsd")).isEqualTo("; did you mean [imds]?");
    assertThat(KeySuggestions.forSection("Telemetri")).isEqualTo("; did you mean [telemetry]?");
    assertThat(KeySuggestions.forSection("usr")).isEqualTo("; did you mean [user]?");
    assertThat(KeySuggestions.forSection("ssl")).isEqualTo("; did you mean [ssh]?");
    assertThat(KeySuggestions.forSection("tls")).isEmpty();
  }

  @Test
  void distance_countsASwapAsOneEdit() {
    assertThat(KeySuggestions.distance("imds", "imds")).isZero();
    assertThat(KeySuggestions.distance("imds", "imsd")).isEqualTo(1);
    assertThat(KeySuggestions.distance("imds", "ims")).isEqualTo(1);
    assertThat(KeySuggestions.distance("", "ssh")).isEqualTo(3);
    assertThat(KeySuggestions.distance("kitten", "sitting")).isEqualTo(3);
  }
}
