package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.fixtures.Fixtures;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.commons.codec.digest.Sha2Crypt;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvprov metadata} and {@code kvprov render-ignition} against the simulator and the sample
 * media (whose password is the canary): what they print and write, and what they never show.
 */
class PlatformDataCommandsTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path dir;
  private Path root;
  private Path media;
  private StringWriter out;
  private StringWriter err;

  @BeforeEach
  void setUp() throws Exception {
    root = TestVm.root(dir);
    media = TestVm.media(dir);
  }

  private int run(AzureSimulator simulator, String... args) throws Exception {
    Path config = dir.resolve("kvprov.toml");
    Files.writeString(
        config,
        simulator
            .configSnippet()
            .replace(
                "[imds]\n", "[imds]\ntotal_retry_timeout_secs = 2\nretry_interval_secs = 0.1\n"));
    out = new StringWriter();
    err = new StringWriter();
    CommandLine cli = KvprovCommand.commandLine();
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    List<String> argv = new ArrayList<>(List.of(args));
    argv.addAll(
        List.of(
            "--root",
            root.toString(),
            "--config",
            config.toString(),
            "--media-dir",
            media.toString()));
    return cli.execute(argv.toArray(String[]::new));
  }

  private String pool() throws Exception {
    return new String(Files.readAllBytes(root.resolve("var/lib/hyperv/.kvp_pool_1")), UTF_8);
  }

  @Test
  void renderIgnition_rendersPortalKeysAsOneLine_andRefusesAnUnusableKey() throws Exception {
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.PORTAL_KEYS).start()) {
      assertThat(run(simulator, "render-ignition")).as(err.toString()).isZero();

      JsonNode keys = JSON.readTree(out.toString()).at("/passwd/users/0/sshAuthorizedKeys");
      assertThat(keys).hasSize(2);
      assertThat(keys.get(0).asText()).isEqualTo(PortalKeysEndToEndTest.RSA_LINE);
      assertThat(keys.get(1).asText()).matches("ssh-rsa [A-Za-z0-9+/]+=*");
    }
    String json = PortalKeysEndToEndTest.instanceWithKeys(PortalKeysEndToEndTest.RSA_LINE, "junk");
    try (AzureSimulator simulator = AzureSimulator.builder().instanceJson(json).start()) {
      assertThat(run(simulator, "render-ignition")).isEqualTo(1);

      assertThat(err.toString())
          .isEqualTo(
              "kvprov render-ignition: the SSH key at index 1 cannot be used: not one OpenSSH key"
                  + " line: unknown key type 'junk'"
                  + System.lineSeparator());
      assertThat(out.toString()).isEmpty();
    }
  }

  @Test
  void renderIgnition_passesIgnitionsSchema_andHoldsTheUserKeysHashAndHostname() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "render-ignition", "--groups", "sudo,docker"))
          .as(err.toString())
          .isZero();
    }
    String rendered = out.toString();
    assertThat(strictSchemaErrors(rendered)).isEmpty();

    JsonNode config = JSON.readTree(rendered);
    assertThat(config.at("/ignition/version").asText()).isEqualTo("3.4.0");
    JsonNode user = config.at("/passwd/users/0");
    assertThat(user.get("name").asText()).isEqualTo("azureuser");
    assertThat(user.get("sshAuthorizedKeys")).hasSize(2);
    assertThat(user.get("sshAuthorizedKeys").get(0).asText()).startsWith("ssh-ed25519 AAAAC3");
    assertThat(user.get("groups").toString()).isEqualTo("[\"sudo\",\"docker\"]");
    String hash = user.get("passwordHash").asText();
    assertThat(Sha2Crypt.sha512Crypt("Fixture-S3cret#never-log-me".getBytes(UTF_8), hash))
        .isEqualTo(hash);
    JsonNode hostname = config.at("/storage/files/0");
    assertThat(hostname.get("path").asText()).isEqualTo("/etc/hostname");
    assertThat(hostname.at("/contents/source").asText()).isEqualTo("data:,sim-vm%0A");
    assertThat(hostname.get("mode").asInt()).isEqualTo(0644);
    // The hash is for Ignition only: never in the trace.
    assertThat(rendered + err).doesNotContain(Fixtures.CANARY);
    assertThat(pool())
        .doesNotContain(Fixtures.CANARY)
        .doesNotContain(hash)
        .contains("render-ignition");
  }

  @Test
  void theSchemaCheck_canFail() throws Exception {
    assertThat(
            strictSchemaErrors(
                "{\"ignition\":{\"version\":\"3.4.0\"},\"passwd\":{\"users\":[{\"name\":\"a\","
                    + "\"sshAuthorisedKeys\":[\"k\"]}]}}"))
        .isNotEmpty();
    assertThat(strictSchemaErrors("{\"ignition\":{\"version\":3}}")).isNotEmpty();
  }

  @Test
  void renderIgnition_toAFile_isReadableByRootAlone() throws Exception {
    Path file = dir.resolve("kvprov.ign");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "render-ignition", "-o", file.toString()))
          .as(err.toString())
          .isZero();
    }
    assertThat(out.toString()).isEmpty();
    assertThat(strictSchemaErrors(Files.readString(file))).isEmpty();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
  }

  @Test
  void metadata_writesAfterburnStyleFiles_andAnswersScripts() throws Exception {
    Path hostname = dir.resolve("hostname");
    Path attributes = dir.resolve("attributes");
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(
              run(
                  simulator,
                  "metadata",
                  "--hostname",
                  hostname.toString(),
                  "--attributes",
                  attributes.toString()))
          .as(err.toString())
          .isZero();
      assertThat(out.toString()).isEmpty();
      assertThat(hostname).hasContent("sim-vm");
      assertThat(Files.readAllLines(attributes))
          .containsExactly(
              "KVPROV_AZURE_VM_ID=a1b2c3d4-1111-4222-8333-444455556666",
              "KVPROV_AZURE_VM_NAME=sim-vm",
              "KVPROV_AZURE_LOCATION=northeurope",
              "KVPROV_AZURE_VMSIZE=Standard_B2s",
              "KVPROV_AZURE_HOSTNAME=sim-vm",
              "KVPROV_AZURE_ADMIN_USERNAME=azureuser",
              "KVPROV_AZURE_IPV4_PRIVATE=10.1.2.5");

      assertThat(run(simulator, "metadata", "--json")).as(err.toString()).isZero();
      JsonNode json = JSON.readTree(out.toString());
      assertThat(json.get("vm_size").asText()).isEqualTo("Standard_B2s");
      assertThat(json.get("password_given").asBoolean()).isTrue();
      assertThat(json.get("ssh_keys")).hasSize(2);
      assertThat(json.get("ipv4_public").isNull()).isTrue();
      assertThat(out.toString()).doesNotContain(Fixtures.CANARY);

      assertThat(run(simulator, "metadata", "KVPROV_AZURE_IPV4_PRIVATE")).isZero();
      assertThat(out.toString()).isEqualTo("10.1.2.5\n");
      assertThat(run(simulator, "metadata", "vm_size")).isZero();
      assertThat(out.toString()).isEqualTo("Standard_B2s\n");

      assertThat(run(simulator, "metadata", "KVPROV_AZURE_IPV4_PUBLIC")).isEqualTo(1);
      assertThat(err.toString()).contains("KVPROV_AZURE_IPV4_PUBLIC has no value on this VM");
      assertThat(run(simulator, "metadata", "VMSIZE")).isEqualTo(1);
      assertThat(err.toString()).contains("VMSIZE is not a key; the keys are KVPROV_AZURE_VM_ID");
    }
    assertThat(pool()).doesNotContain(Fixtures.CANARY).contains("metadata");
  }

  @Test
  void metadata_withImdsDown_isExit10_inPlainWords() throws Exception {
    Files.delete(media.resolve("ovf-env.xml"));
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(dev.kvprov.agent.sim.Scenario.IMDS_DOWN).start()) {
      assertThat(run(simulator, "metadata")).isEqualTo(10);
      assertThat(err.toString()).startsWith("kvprov metadata: ").doesNotContain("Exception");
    }
  }

  @Test
  void offAzure_theBuiltInImds_isNotWaitedFor() {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        AzureHost.notAzure(Path.of("/sys")).isPresent(), "running on Azure");
    for (String command : List.of("metadata", "render-ignition")) {
      StringWriter errors = new StringWriter();
      CommandLine cli = KvprovCommand.commandLine();
      cli.setErr(new PrintWriter(errors, true));
      assertThat(cli.execute(command)).isEqualTo(2);
      assertThat(errors.toString())
          .startsWith("kvprov " + command + ": this machine is not an Azure VM")
          .contains("kvprov simulate");
    }
  }

  @Test
  void aGroupIgnitionCannotMake_isRefusedBeforeAnything() throws Exception {
    try (AzureSimulator simulator = AzureSimulator.builder().start()) {
      assertThat(run(simulator, "render-ignition", "--groups", "sudo,")).isZero();
      assertThat(run(simulator, "render-ignition", "--groups", "Sudo Users")).isEqualTo(2);
      assertThat(err.toString()).contains("--groups: 'Sudo Users' is not a group name");
      assertThat(run(simulator, "metadata", "kvprov_azure_vmsize")).isZero();
      assertThat(out.toString()).isEqualTo("Standard_B2s\n");
    }
  }

  /**
   * Errors against Ignition's published schema, made as strict as Ignition's own parser: an object
   * with fields it does not know is refused (the schema alone lets them through).
   */
  static Set<ValidationMessage> strictSchemaErrors(String config) throws Exception {
    JsonNode schemaNode;
    try (InputStream in =
        PlatformDataCommandsTest.class.getResourceAsStream(
            "/ignition/ignition-3.4.0.schema.json")) {
      schemaNode = JSON.readTree(in);
    }
    refuseUnknownFields(schemaNode);
    JsonSchema schema =
        JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schemaNode);
    return schema.validate(JSON.readTree(config));
  }

  /**
   * Adds {@code additionalProperties: false} to every object schema. A schema made of parts ({@code
   * allOf}, as Ignition's {@code file} is a {@code node} plus its own fields) gets the union of its
   * parts' fields, and its parts stay open: each part alone would refuse the others'.
   */
  private static void refuseUnknownFields(JsonNode schema) {
    Set<JsonNode> parts = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    closeComposites(schema, schema, parts);
    closeObjects(schema, parts);
  }

  private static void closeComposites(JsonNode root, JsonNode node, Set<JsonNode> parts) {
    if (node instanceof ObjectNode object && object.has("allOf")) {
      ObjectNode union = JSON.createObjectNode();
      for (JsonNode member : object.get("allOf")) {
        JsonNode part =
            member.has("$ref") ? root.at(member.get("$ref").asText().substring(1)) : member;
        parts.add(part);
        part.path("properties").fieldNames().forEachRemaining(n -> union.putObject(n));
      }
      object.set("properties", union);
      object.put("additionalProperties", false);
    }
    node.forEach(child -> closeComposites(root, child, parts));
  }

  private static void closeObjects(JsonNode node, Set<JsonNode> parts) {
    if (node instanceof ObjectNode object
        && object.has("properties")
        && !object.has("additionalProperties")
        && !parts.contains(object)) {
      object.put("additionalProperties", false);
    }
    node.forEach(child -> closeObjects(child, parts));
  }
}
