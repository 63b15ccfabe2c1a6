package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.ItemReader;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code kvp decode}: payloads expanded back to text (cloud-init's compressed dmesg, …). */
@Command(
    name = "decode",
    mixinStandardHelpOptions = true,
    description = {
      "Expand encoded payloads (cloud-init's compressed dmesg) to text.",
      "",
      "cloud-init's compressed events (zlib + base64, labelled gz+b64) are shown as",
      "the text they hold, e.g. the dmesg cloud-init saved; with no KEY, every",
      "payload in the pool."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp decode",
      "  kvp decode 'CLOUD_INIT|1795322355|compressed|dmesg|f6f6ec3d-f600-46f8-810c-0780c5839d49'"
    })
final class DecodeCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

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
          ItemReader.Payload payload = item.writer().reader().payload(item).orElse(null);
          if (payload == null) {
            return;
          }
          if (payload.error() == null) {
            String text = payload.text();
            String encoding = payload.encoding();
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
          } else {
            if (json) {
              lines.write(Json.object().put("key", item.key()).put("error", payload.error()));
            } else {
              out.println(
                  "== "
                      + Text.printable(item.key())
                      + ": does not decode: "
                      + Text.printable(payload.error()));
            }
            decoded[1]++;
          }
        };
    if (!PoolReading.items(input, spec, sink)) {
      return ExitCode.IO.code;
    }
    if (decoded[0] == 0 && decoded[1] == 0) {
      spec.commandLine()
          .getErr()
          .println(
              key == null
                  ? "kvp decode: no encoded payloads"
                  : "kvp decode: no encoded payload with key " + Text.printable(key));
      return ExitCode.FOUND.code;
    }
    return (decoded[1] == 0 ? ExitCode.OK : ExitCode.FOUND).code;
  }
}
