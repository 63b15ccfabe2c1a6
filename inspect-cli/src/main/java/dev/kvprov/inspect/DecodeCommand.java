package dev.kvprov.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvp decode}: payloads expanded back to text (cloud-init's compressed dmesg, …). */
@Command(
    name = "decode",
    mixinStandardHelpOptions = true,
    description = {
      "Expand encoded payloads, e.g. cloud-init's compressed dmesg, back to text.",
      "",
      "cloud-init's compressed events (zlib + base64, labelled gz+b64) are shown as",
      "the text they hold, e.g. the dmesg cloud-init saved; with no KEY, every",
      "payload in the pool."
    },
    footer = {
      "",
      "Exit status: 0 ok; 1 nothing to decode, or a payload that does not decode; 3 I/O error.",
      "",
      "Examples:",
      "  kvp decode",
      "  kvp decode 'CLOUD_INIT|1795322355|compressed|dmesg|f6f6ec3d-f600-46f8-810c-0780c5839d49'"
    })
final class DecodeCommand implements Callable<Integer> {
  /** Decompressed payloads are capped: a zlib bomb must not fill memory. */
  static final int MAX_DECODED_BYTES = 64 << 20;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolInput input;

  @Parameters(
      arity = "0..1",
      paramLabel = "KEY",
      description = "The item to decode (its logical key).")
  String key;

  @CommandLine.Option(
      names = "--json",
      description = "JSON Lines: {key, encoding, text} or {key, error} per payload.")
  boolean json;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    Json.Lines lines = new Json.Lines(out);
    int[] decoded = new int[2]; // decoded, failed
    Consumer<Item> sink =
        item -> {
          if (key != null && !item.key().equals(key)) {
            return;
          }
          JsonNode event = Events.of(item);
          if (event == null || !event.path("type").asText().equals("compressed")) {
            return;
          }
          try {
            JsonNode payload = Json.parse(event.path("msg").asText());
            String text = inflate(payload.path("data").asText());
            String encoding = payload.path("encoding").asText();
            if (json) {
              lines.write(
                  Json.object().put("key", item.key()).put("encoding", encoding).put("text", text));
            } else {
              out.println(
                  "== "
                      + Text.printable(item.key())
                      + " ("
                      + Text.printable(encoding)
                      + ", "
                      + text.length()
                      + " chars)");
              // The payload itself is shown as it is: multi-line text such as dmesg.
              out.print(text.endsWith("\n") ? text : text + "\n");
            }
            decoded[0]++;
          } catch (IOException | DataFormatException | IllegalArgumentException e) {
            if (json) {
              lines.write(Json.object().put("key", item.key()).put("error", e.getMessage()));
            } else {
              out.println(
                  "== "
                      + Text.printable(item.key())
                      + ": does not decode: "
                      + Text.printable(String.valueOf(e.getMessage())));
            }
            decoded[1]++;
          }
        };
    if (!input.forEachItem(sink, spec)) {
      return 3;
    }
    if (decoded[0] == 0 && decoded[1] == 0) {
      spec.commandLine()
          .getErr()
          .println(
              key == null
                  ? "kvp decode: no encoded payloads"
                  : "kvp decode: no encoded payload with key " + Text.printable(key));
      return 1;
    }
    return decoded[1] == 0 ? 0 : 1;
  }

  /** Base64 (with line breaks) of zlib data, which cloud-init labels "gz+b64". */
  static String inflate(String base64) throws DataFormatException {
    byte[] compressed = Base64.getMimeDecoder().decode(base64);
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(compressed);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new DataFormatException("the compressed data ends early");
        }
        out.write(buffer, 0, n);
        if (out.size() > MAX_DECODED_BYTES) {
          throw new DataFormatException(
              "more than " + MAX_DECODED_BYTES + " bytes decoded; stopped");
        }
      }
      return out.toString(StandardCharsets.UTF_8);
    } finally {
      inflater.end();
    }
  }
}
