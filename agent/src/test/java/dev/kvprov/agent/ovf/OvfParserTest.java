package dev.kvprov.agent.ovf;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.fixtures.Fixtures;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OvfParserTest {
  static final String CANARY = Fixtures.CANARY;

  static String fixture() {
    return Fixtures.text(Fixtures.OVF_ENV);
  }

  private static OvfEnvironment parse(String xml) throws OvfException {
    return OvfParser.parse(new ByteArrayInputStream(xml.getBytes(UTF_8)));
  }

  @Test
  void theFixture_givesEveryField() throws Exception {
    OvfEnvironment env = parse(fixture());

    assertThat(env.userName()).isEqualTo("azureuser");
    assertThat(env.hostName()).isEqualTo("web-01");
    assertThat(env.disableSshPasswordAuthentication()).isFalse();
    assertThat(new String(env.password().orElseThrow().copy())).endsWith(CANARY);
    assertThat(new String(env.customData().orElseThrow().copy()))
        .isEqualTo(
            "I2Nsb3VkLWNvbmZpZwp3cml0ZV9maWxlczoKICAtIHBhdGg6IC9ldGMvbW90ZAogICAgY29udGVudDogcHJvdmlzaW9uZWQgYnkga3Zwcm92IHRlc3RzCg==");
    assertThat(env.sshKeys()).hasSize(1);
    assertThat(env.sshKeys().get(0).path()).isEqualTo("/home/azureuser/.ssh/authorized_keys");
    assertThat(env.sshKeys().get(0).value()).startsWith("ssh-ed25519 AAAAC3");
    assertThat(env.preprovisionedVm()).isFalse();
    assertThat(env.preprovisionedVmType()).isEqualTo("None");
    assertThat(env.toString()).doesNotContain(CANARY).contains("Secret[");
  }

  @Test
  void theKeptCopy_readsAsTheSameMedia_withoutThePasswordOrCustomData() throws Exception {
    OvfEnvironment env = parse(fixture());

    String kept = env.withoutSecrets();
    OvfEnvironment again = parse(kept);

    assertThat(kept).doesNotContain(CANARY).doesNotContain("I2Nsb3VkLWNvbmZpZw");
    assertThat(again.userName()).isEqualTo(env.userName());
    assertThat(again.hostName()).isEqualTo(env.hostName());
    assertThat(again.sshKeys()).isEqualTo(env.sshKeys());
    assertThat(again.password()).isEmpty();
    assertThat(again.customData()).isEmpty();
    assertThat(again.withoutSecrets()).isEqualTo(kept);
  }

  @Test
  void theKeptCopy_dropsEverythingInsideThePassword_evenMarkup() throws Exception {
    String hostile =
        fixture()
            .replaceFirst(
                "<UserPassword>[^<]*</UserPassword>",
                "<UserPassword>x<b>nested-"
                    + CANARY
                    + "</b>y<![CDATA["
                    + CANARY
                    + "]]></UserPassword>");

    String kept = parse(hostile).withoutSecrets();

    assertThat(kept).doesNotContain(CANARY).doesNotContain("<b>").contains("<UserPassword");
  }

  @Test
  void clearSecrets_wipesThePasswordAndCustomData() throws Exception {
    OvfEnvironment env = parse(fixture());

    env.clearSecrets();

    assertThat(env.password().orElseThrow().toString()).isEqualTo("Secret[cleared]");
    assertThatThrownBy(() -> env.password().orElseThrow().copy())
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void namespacesMatchByUri_whateverThePrefixes() throws Exception {
    String xml =
        """
        <o:Environment xmlns:o="http://schemas.dmtf.org/ovf/environment/1" xmlns:az="http://schemas.microsoft.com/windowsazure">
          <az:ProvisioningSection>
            <az:LinuxProvisioningConfigurationSet>
              <az:HostName>h1</az:HostName><az:UserName>u1</az:UserName>
            </az:LinuxProvisioningConfigurationSet>
          </az:ProvisioningSection>
        </o:Environment>
        """;

    OvfEnvironment env = parse(xml);

    assertThat(env.userName()).isEqualTo("u1");
    assertThat(env.password()).isEmpty();
    assertThat(env.disableSshPasswordAuthentication()).as("the safe default").isTrue();
  }

  @Test
  void theRightNamesInTheWrongNamespace_areNotTakenForTheRealThing() throws Exception {
    String wrong =
        fixture()
            .replace(
                "<LinuxProvisioningConfigurationSet xmlns=\"http://schemas.microsoft.com/windowsazure\"",
                "<LinuxProvisioningConfigurationSet xmlns=\"http://example.com/not-azure\"");

    assertThatThrownBy(() -> parse(wrong))
        .isInstanceOf(OvfException.class)
        .hasMessageContaining("has no UserName or HostName")
        .hasMessageContaining("http://schemas.microsoft.com/windowsazure")
        .hasMessageNotContaining(CANARY);
  }

  /** The fixture with its password element in another namespace, its text ending in the canary. */
  static String foreignPassword() {
    return fixture()
        .replaceFirst(
            "<UserPassword>[^<]*</UserPassword>",
            "<x:UserPassword xmlns:x=\"urn:example:not-azure\">Foreign#"
                + CANARY
                + "</x:UserPassword>");
  }

  @Test
  void aPasswordInAnotherNamespace_isThePassword_andIsNeverKept() throws Exception {
    OvfEnvironment env = parse(foreignPassword());

    assertThat(new String(env.password().orElseThrow().copy())).isEqualTo("Foreign#" + CANARY);
    assertThat(env.withoutSecrets()).doesNotContain(CANARY).contains("UserPassword");
    assertThat(env.toString()).doesNotContain(CANARY);
    assertThat(parse(env.withoutSecrets()).password()).isEmpty();
  }

  @Test
  void theWindowsAzurePassword_winsOverOneInAnotherNamespace_andNeitherIsKept() throws Exception {
    String both =
        fixture()
            .replaceFirst(
                "(<UserPassword>[^<]*</UserPassword>)",
                "<x:UserPassword xmlns:x=\"urn:example:a\">first-"
                    + CANARY
                    + "</x:UserPassword>$1"
                    + "<y:UserPassword xmlns:y=\"urn:example:b\">last-"
                    + CANARY
                    + "</y:UserPassword>");

    OvfEnvironment env = parse(both);

    assertThat(new String(env.password().orElseThrow().copy()))
        .isEqualTo("Fixture-S3cret#" + CANARY);
    assertThat(env.withoutSecrets()).doesNotContain(CANARY);
  }

  @Test
  void aPasswordOrCustomDataElsewhere_isNeverKept_norTakenForAField() throws Exception {
    String elsewhere =
        fixture()
            .replace(
                "<KmsServerHostname>",
                "<UserPassword>platform-"
                    + CANARY
                    + "</UserPassword>"
                    + "<q:Extra xmlns:q=\"urn:example:q\"><q:CustomData>deep-"
                    + CANARY
                    + "</q:CustomData></q:Extra><KmsServerHostname>");

    OvfEnvironment env = parse(elsewhere);

    assertThat(new String(env.password().orElseThrow().copy()))
        .isEqualTo("Fixture-S3cret#" + CANARY);
    assertThat(env.withoutSecrets()).doesNotContain(CANARY).contains("q:Extra");
  }

  @Test
  void aDocumentWithoutNamespaces_isNotTakenForOvfEnvXml() {
    String bare =
        "<Environment><ProvisioningSection><LinuxProvisioningConfigurationSet>"
            + "<UserName>u</UserName><HostName>h</HostName>"
            + "</LinuxProvisioningConfigurationSet></ProvisioningSection></Environment>";

    assertThatThrownBy(() -> parse(bare))
        .isInstanceOf(OvfException.class)
        .hasMessageContaining("has no UserName or HostName");
  }

  @Test
  void externalEntities_areRefused_andNothingIsRead(@TempDir Path dir) throws Exception {
    Path secret = dir.resolve("secret.txt");
    Files.writeString(secret, "TOP-SECRET-FILE");
    String xxe =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE Environment [<!ENTITY x SYSTEM \"file://"
            + secret
            + "\">]>\n"
            + fixture().substring(fixture().indexOf("<Environment")).replace("web-01", "&x;");

    assertThatThrownBy(() -> parse(xxe))
        .isInstanceOf(OvfException.class)
        .hasMessageContaining("DOCTYPE")
        .hasMessageNotContaining("TOP-SECRET-FILE");
  }

  @Test
  void anEntityExpansionBomb_isRefusedAtOnce() {
    StringBuilder bomb =
        new StringBuilder("<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lol\">\n");
    for (int i = 1; i <= 9; i++) {
      bomb.append("<!ENTITY lol").append(i).append(" \"");
      bomb.append(("&lol" + (i == 1 ? "" : i - 1) + ";").repeat(10)).append("\">\n");
    }
    bomb.append(
        "]>\n<Environment xmlns=\"http://schemas.dmtf.org/ovf/environment/1\">&lol9;</Environment>");

    assertThatThrownBy(() -> parse(bomb.toString()))
        .isInstanceOf(OvfException.class)
        .hasMessageContaining("DOCTYPE");
  }

  @Test
  void aHugeDocument_isRefusedBeforeParsing() {
    String huge = "<Environment>" + "<x>".repeat(100_000) + "</Environment>";

    assertThatThrownBy(() -> parse(huge))
        .isInstanceOf(OvfException.class)
        .hasMessage("ovf-env.xml is larger than 262144 bytes; refused");
  }

  @Test
  void brokenXmlOrMissingFields_areClearErrors_thatNeverQuoteThePassword() throws Exception {
    String truncated = fixture().substring(0, fixture().indexOf("</UserPassword>") + 5);
    assertThatThrownBy(() -> parse(truncated))
        .isInstanceOf(OvfException.class)
        .hasMessageStartingWith("ovf-env.xml is not well-formed XML")
        .hasMessageNotContaining(CANARY);

    String noUser = fixture().replace("<UserName>azureuser</UserName>", "");
    assertThatThrownBy(() -> parse(noUser))
        .hasMessageContaining("has no UserName")
        .hasMessageNotContaining(CANARY);
  }
}
