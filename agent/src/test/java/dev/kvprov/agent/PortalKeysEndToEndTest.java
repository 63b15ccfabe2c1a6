package dev.kvprov.agent;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.agent.certs.TransportKey;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.otel.ProvisioningReport;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvprov provision --root} against the simulator, with SSH keys as the Azure portal really
 * sends them through IMDS: a key it generated, wrapped with CR LF every 64 characters, and a key as
 * an x509 certificate in PEM.
 */
class PortalKeysEndToEndTest {
  /** The sample instance's RSA key, as one line: what the wrapped form must become again. */
  static final String RSA_LINE =
      "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQCpvbZLkZkwbPCWr/Yc5zfltDQeKlXcyn4EDLeQwkmK8cOyTAiXnsV5"
          + "nH/mAAffMbYPBAufcj+vY3qXOHtdD1ZjDNNT8XdZtfPeXF6uCoNNI1fvtgRNrpBiLUcrAqUm4/nB1L1UCnzfu+pz"
          + "rVmDV5SA0sT140P9P/uXmHc1rNoUFDbthin+38j373hBW9pK2nurgoUWZMnTymJ/oxlLhvp8wP6dHw6Xz8bI/UxI"
          + "e1w/u0YNDVejl3gBLiAusg0WvQS3fnRpuSh2B2dxkWPeiqXuFpEYnv+/yVHYsWnISHZtJwihStagun44l+WAsFmz"
          + "EhaJ24OrE+6n2+wcKWZJtJX9 deploy@pipeline";

  static final String KEYS_PATH = "/home/azureuser/.ssh/authorized_keys";

  @TempDir Path dir;
  private Path root;
  private Path media;
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

  @BeforeEach
  void setUp() throws Exception {
    root = TestVm.root(dir);
    media = TestVm.media(dir);
  }

  @Test
  void aCrLfWrappedKey_andACertificate_endReady_asOneLineEach() throws Exception {
    byte[] certificate = Base64.getDecoder().decode(TransportKey.create().certificateHeader());
    String json = instanceWithKeys(crLfEvery64(RSA_LINE) + "\r\n", pem(certificate));

    try (AzureSimulator simulator = AzureSimulator.builder().instanceJson(json).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(Files.readAllLines(root.resolve("home/azureuser/.ssh/authorized_keys")))
          .containsExactly(RSA_LINE, sshRsa(certificate));
      assertThat(report().isSuccess()).isTrue();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
    }
  }

  @Test
  void thePortalKeysScenario_endsReady_withBothKeysAsOneLineEach() throws Exception {
    try (AzureSimulator simulator =
        AzureSimulator.builder().scenario(Scenario.parse("portal-keys")).start()) {
      String sent = new String(imdsAnswer(simulator), UTF_8);
      assertThat(sent).contains("\\r\\n").contains("-----BEGIN CERTIFICATE-----");

      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isZero();

      assertThat(Files.readAllLines(root.resolve("home/azureuser/.ssh/authorized_keys")))
          .containsExactly(RSA_LINE, sshRsa(simulator.certificate()));
      assertThat(report().isSuccess()).isTrue();
      assertThat(simulator.reports())
          .extracting(AzureSimulator.Report::body)
          .containsExactly("{\"state\":\"Ready\"}");
    }
  }

  @Test
  void anUnknownKeyFormat_failsTheSshKeysStepAlone_namingTheKey() throws Exception {
    String json =
        instanceWithKeys(crLfEvery64(RSA_LINE), "-----BEGIN SSH2 PUBLIC KEY-----\r\nAAAAB3Nza\r\n");

    try (AzureSimulator simulator = AzureSimulator.builder().instanceJson(json).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(17);

      String detail =
          "the SSH key at index 1 (path "
              + KEYS_PATH
              + ") was not installed: a PEM block of type 'SSH2 PUBLIC KEY', not an OpenSSH key"
              + " line nor an x509 certificate";
      ProvisioningReport report = report();
      assertThat(report.get("reason")).contains("SSH key setup failed");
      assertThat(report.get("step")).contains("ssh_keys");
      assertThat(report.get("detail")).contains(detail);
      assertThat(simulator.reports()).hasSize(1);
      assertThat(simulator.reports().get(0).body()).contains("NotReady").contains(detail);
      // Every other step ran: host name, user, sudoers; the usable key is in place.
      assertThat(Files.readString(root.resolve("etc/hostname"))).isEqualTo("sim-vm\n");
      assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:");
      assertThat(root.resolve("etc/sudoers.d/90-kvprov-azureuser")).exists();
      assertThat(Files.readAllLines(root.resolve("home/azureuser/.ssh/authorized_keys")))
          .containsExactly(RSA_LINE);
    }
  }

  @Test
  void garbageAsAKey_failsTheSshKeysStep_withTheReason_quotingNoKey() throws Exception {
    String garbage = "ecdsa-sha2-nistp256 " + "QUJD".repeat(40) + " me@laptop";
    String json = instanceWithKeys(garbage);

    try (AzureSimulator simulator = AzureSimulator.builder().instanceJson(json).start()) {
      assertThat(provision(simulator)).as(stderr.toString(UTF_8)).isEqualTo(17);

      String detail = report().get("detail").orElseThrow();
      assertThat(detail)
          .isEqualTo(
              "the SSH key at index 0 (path "
                  + KEYS_PATH
                  + ") was not installed: not one OpenSSH key line: the key says"
                  + " ecdsa-sha2-nistp256 but its data names no key type");
      assertThat(simulator.reports().get(0).body()).contains("NotReady");
      assertThat(stderr.toString(UTF_8)).doesNotContain("QUJDQUJD");
      assertThat(Files.readString(root.resolve("etc/passwd"))).contains("azureuser:");
    }
  }

  /** What the simulated IMDS sends, as the agent asks for it. */
  private static byte[] imdsAnswer(AzureSimulator simulator) throws Exception {
    java.net.HttpURLConnection connection =
        (java.net.HttpURLConnection)
            simulator
                .imdsEndpoint()
                .resolve("/metadata/instance?api-version=2023-11-15")
                .toURL()
                .openConnection(java.net.Proxy.NO_PROXY);
    connection.setRequestProperty("Metadata", "true");
    try (InputStream in = connection.getInputStream()) {
      return in.readAllBytes();
    }
  }

  /** {@code line} with CR LF after every 64 characters, as the portal sends its keys. */
  static String crLfEvery64(String line) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < line.length(); i += 64) {
      out.append(line, i, Math.min(line.length(), i + 64));
      if (i + 64 < line.length()) {
        out.append("\r\n");
      }
    }
    return out.toString();
  }

  /** {@code der} as a PEM certificate, lines of 64 ended by CR LF. */
  static String pem(byte[] der) {
    return "-----BEGIN CERTIFICATE-----\r\n"
        + Base64.getMimeEncoder(64, "\r\n".getBytes(UTF_8)).encodeToString(der)
        + "\r\n-----END CERTIFICATE-----\r\n";
  }

  /**
   * The {@code ssh-rsa} line of the certificate's key, made here from the JDK's reading of it (RFC
   * 4253 §6.6), not with kvprov's code.
   */
  static String sshRsa(byte[] der) throws Exception {
    RSAPublicKey key =
        (RSAPublicKey)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(new java.io.ByteArrayInputStream(der))
                .getPublicKey();
    byte[] type = "ssh-rsa".getBytes(UTF_8);
    byte[] e = key.getPublicExponent().toByteArray();
    byte[] n = key.getModulus().toByteArray();
    ByteBuffer blob = ByteBuffer.allocate(12 + type.length + e.length + n.length);
    blob.putInt(type.length).put(type).putInt(e.length).put(e).putInt(n.length).put(n);
    assertThat(new BigInteger(1, n)).isEqualTo(key.getModulus());
    return "ssh-rsa " + Base64.getEncoder().encodeToString(blob.array());
  }

  /** The simulator's sample instance with these keys, each for the admin's authorized_keys. */
  static String instanceWithKeys(String... keyData) throws Exception {
    ObjectMapper json = new ObjectMapper();
    ObjectNode instance;
    try (InputStream in = AzureSimulator.class.getResourceAsStream("instance.json")) {
      instance = (ObjectNode) json.readTree(in);
    }
    ArrayNode keys = ((ObjectNode) instance.get("compute")).putArray("publicKeys");
    for (String data : keyData) {
      keys.addObject().put("keyData", data).put("path", KEYS_PATH);
    }
    return json.writeValueAsString(instance);
  }

  private int provision(AzureSimulator simulator) throws Exception {
    Path config = TestVm.simulatorConfig(dir, simulator);
    ConfigOptions options = new ConfigOptions();
    options.root = root;
    options.config = config;
    return ProvisionCommand.run(options, media, new PrintStream(stderr, true, UTF_8));
  }

  private List<KvpRecord> pool() throws Exception {
    return TestVm.pool(root);
  }

  private ProvisioningReport report() throws Exception {
    return TestVm.report(root);
  }
}
