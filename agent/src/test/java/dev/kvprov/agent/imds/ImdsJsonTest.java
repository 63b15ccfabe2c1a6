package dev.kvprov.agent.imds;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import dev.kvprov.agent.sim.AzureSimulator;
import dev.kvprov.agent.sim.Scenario;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * IMDS's answer read by the streaming parser ({@link ImdsJson}) and by the {@code ObjectMapper}
 * that read it before, side by side: the same instance, the same refusal, or both taken for a body
 * cut short.
 */
class ImdsJsonTest {
  /** The reading before: a tree, then the records bound by reflection, unknown fields ignored. */
  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  /** How a reading ended: an instance, none (JSON's null), a refusal, or "ask again". */
  private record Reading(String outcome, Optional<ImdsInstance> instance) {}

  private static Reading ours(byte[] body) {
    try {
      Optional<JsonNode> tree = ImdsJson.tree(body);
      if (tree.isEmpty()) {
        return new Reading("empty", Optional.empty());
      }
      return new Reading("read", ImdsJson.instance(tree.get()));
    } catch (ImdsJson.NotMetadata e) {
      return new Reading("refused: " + e.getMessage(), Optional.empty());
    } catch (IOException e) {
      return new Reading("asked again", Optional.empty());
    }
  }

  private static Reading mappers(byte[] body) {
    try {
      JsonNode tree = MAPPER.readTree(body);
      if (tree == null || tree.isMissingNode()) {
        return new Reading("empty", Optional.empty());
      }
      return new Reading(
          "read",
          tree.isNull()
              ? Optional.empty()
              : Optional.of(MAPPER.treeToValue(tree, ImdsInstance.class)));
    } catch (MismatchedInputException e) {
      return new Reading("refused: " + where(e), Optional.empty());
    } catch (JacksonException e) {
      return new Reading("asked again", Optional.empty());
    } catch (IOException e) {
      throw new AssertionError(e);
    }
  }

  /** How the client named a mismatch when the mapper read the answer. */
  private static String where(MismatchedInputException e) {
    StringBuilder where = new StringBuilder();
    for (JsonMappingException.Reference step : e.getPath()) {
      if (step.getFieldName() != null) {
        where.append(where.isEmpty() ? "" : ".").append(step.getFieldName());
      } else if (step.getIndex() >= 0) {
        where.append('[').append(step.getIndex()).append(']');
      }
    }
    Class<?> expected = e.getTargetType();
    String kind;
    if (expected == String.class) {
      kind = "a string";
    } else if (expected == Boolean.class) {
      kind = "true or false";
    } else if (expected != null && java.util.Collection.class.isAssignableFrom(expected)) {
      kind = "a list";
    } else {
      kind = "an object";
    }
    return (where.isEmpty() ? "the metadata" : where.toString()) + " is not " + kind;
  }

  private static void sameReading(String json) {
    byte[] body = json.getBytes(UTF_8);
    assertThat(ours(body)).as(json).isEqualTo(mappers(body));
  }

  /** What the simulator's IMDS answers: the shapes the tests and the demo provision from. */
  @ParameterizedTest
  @EnumSource(
      value = Scenario.class,
      names = {"OK", "CERTIFICATE_KEY", "PORTAL_KEYS", "PPS_RUNNING", "PPS_SAVABLE"})
  void theSimulatorsAnswers_readAsTheMapperReadThem(Scenario scenario) throws Exception {
    byte[] body;
    try (AzureSimulator simulator = AzureSimulator.builder().scenario(scenario).start()) {
      HttpURLConnection connection =
          (HttpURLConnection)
              simulator
                  .imdsEndpoint()
                  .resolve(
                      "/metadata/instance?api-version=" + ImdsClient.API_VERSION + "&extended=true")
                  .toURL()
                  .openConnection();
      connection.setRequestProperty("Metadata", "true");
      assertThat(connection.getResponseCode()).isEqualTo(200);
      try (InputStream in = connection.getInputStream()) {
        body = in.readAllBytes();
      }
    }

    Reading ours = ours(body);
    assertThat(ours.outcome()).isEqualTo("read");
    assertThat(ours.instance().orElseThrow().compute().osProfile().adminUsername()).isNotBlank();
    assertThat(ours).isEqualTo(mappers(body));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "   ",
        "null",
        "{}",
        "[]",
        "\"text\"",
        "7",
        "{\"compute\": null}",
        "{\"compute\": \"x\"}",
        "{\"compute\": []}",
        "{\"compute\": {\"osProfile\": []}}",
        "{\"compute\": {\"osProfile\": 7}}",
        "{\"compute\": {\"osProfile\": \"\"}}",
        "{\"compute\": {\"osProfile\": {\"adminUsername\": [\"a\"]}}}",
        "{\"compute\": {\"osProfile\": {\"adminUsername\": {}}}}",
        "{\"compute\": {\"osProfile\": {\"adminUsername\": 12, \"computerName\": 1.50}}}",
        "{\"compute\": {\"osProfile\": {\"adminUsername\": true, \"computerName\": null}}}",
        "{\"compute\": {\"vmId\": 1e3, \"name\": 12345678901234567890, \"vmSize\": false}}",
        "{\"compute\": {\"vmId\": \"a\", \"vmId\": \"b\", \"osProfile\": {}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \"true\"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \"False\"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \"TRUE\"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \" true \"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \"\"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \"null\"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \"maybe\"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": \"yes\"}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": 1}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": 0}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": 1.5}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": []}}}",
        "{\"compute\": {\"osProfile\": {\"disablePasswordAuthentication\": null}}}",
        "{\"compute\": {\"publicKeys\": {\"keyData\": \"k\"}}}",
        "{\"compute\": {\"publicKeys\": \"k\"}}",
        "{\"compute\": {\"publicKeys\": null}}",
        "{\"compute\": {\"publicKeys\": []}}",
        "{\"compute\": {\"publicKeys\": [\"ssh-ed25519 AAAA\"]}}",
        "{\"compute\": {\"publicKeys\": [7]}}",
        "{\"compute\": {\"publicKeys\": [[]]}}",
        "{\"compute\": {\"publicKeys\": [null]}}",
        "{\"compute\": {\"publicKeys\": [{}, {\"keyData\": \"k\", \"path\": \"/p\", \"x\": 1}]}}",
        "{\"compute\": {\"publicKeys\": [{\"keyData\": [\"k\"]}]}}",
        "{\"compute\": {\"extended\": {\"a\": [1, 2.5, \"x\", null, true, {\"b\": 9}]}}}",
        "{\"compute\": {\"extended\": {\"big\": 12345678901234567890, \"long\": 9876543210}}}",
        "{\"compute\": {\"extended\": \"x\"}}",
        "{\"compute\": {\"extended\": []}}",
        "{\"compute\": {\"extended\": 3}}",
        "{\"compute\": {\"extended\": null}}",
        "{\"network\": null, \"extended\": null, \"compute\": {}}",
        "{\"network\": [1], \"extended\": \"x\", \"compute\": {}}",
        "{\"network\": {\"interface\": [{\"ipv4\": {\"ipAddress\": [{\"privateIpAddress\": \"10.0.0.4\"}]}}]}}",
        "{\"extended\": {\"compute\": {\"ppsType\": \"Running\"}}}",
        "{\"compute\": {}} trailing",
        "{\"compute\": {}} {\"compute\": 1}",
        "{\"compute\": {\"osProfile\": ",
        "{\"compute\": {\"osProfile\": {}}",
        "<html>proxy</html>",
        "{\"compute\": {\"name\": \"caf\\u00e9 \\ud83d\\ude00\"}}",
      })
  void everyShape_readAsTheMapperReadIt(String json) {
    sameReading(json);
  }

  @Test
  void aDeepNesting_isRefusedOrAskedAgainAsBefore() {
    sameReading("{\"network\": " + "[".repeat(1200) + "]".repeat(1200) + "}");
    sameReading("{\"network\": " + "[".repeat(900) + "]".repeat(900) + "}");
  }
}
