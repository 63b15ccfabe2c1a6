package dev.kvprov.agent;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.kvprov.agent.os.AtomicFiles;
import dev.kvprov.agent.os.Names;
import dev.kvprov.agent.provision.PlatformData;
import dev.kvprov.agent.provision.steps.SshKey;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code kvprov metadata}: what IMDS and the media say about this VM, for scripts and units — as
 * Afterburn's outputs (a host name file, an attributes file of {@code KEY=value} lines) and as
 * JSON, like {@code cloud-init query}. Never a password or custom data.
 */
@Command(
    name = "metadata",
    mixinStandardHelpOptions = true,
    description = {
      "Print or write what IMDS and the provisioning media say about this VM.",
      "",
      "Without options: the attributes as KEY=value lines. --json: one JSON object.",
      "KEY: one value (an attribute name, or a JSON field name). --hostname and",
      "--attributes write files for units, as Afterburn's options of the same name do",
      "(the attribute names are kvprov's: docs/commands.md maps Afterburn's to them).",
      "Never prints a password or custom data."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvprov metadata",
      "  kvprov metadata --json | jq -r .vm_size",
      "  kvprov metadata KVPROV_AZURE_IPV4_PRIVATE",
      "  kvprov metadata --hostname /run/kvprov/hostname \\",
      "      --attributes /run/metadata/kvprov"
    })
final class MetadataCommand implements Callable<Integer> {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  /** The attributes, in the order written; docs/commands.md maps Afterburn's to them. */
  enum Attribute {
    VM_ID(d -> Optional.ofNullable(d.vmId())),
    VM_NAME(d -> Optional.ofNullable(d.vmName())),
    LOCATION(d -> Optional.ofNullable(d.location())),
    VMSIZE(d -> Optional.ofNullable(d.vmSize())),
    HOSTNAME(d -> Optional.ofNullable(d.hostname())),
    ADMIN_USERNAME(d -> Optional.ofNullable(d.adminUser())),
    IPV4_PRIVATE(PlatformData::privateIpv4),
    IPV4_PUBLIC(PlatformData::publicIpv4);

    private final java.util.function.Function<PlatformData, Optional<String>> value;

    Attribute(java.util.function.Function<PlatformData, Optional<String>> value) {
      this.value = value;
    }

    /** As written: {@code KVPROV_AZURE_VMSIZE}. */
    String attributeName() {
      return "KVPROV_AZURE_" + name();
    }
  }

  /** Every attribute name, in order. */
  static final List<String> ATTRIBUTES =
      java.util.Arrays.stream(Attribute.values()).map(Attribute::attributeName).toList();

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @CommandLine.Mixin MediaOptions mediaOptions;

  @Option(names = "--hostname", paramLabel = "FILE", description = "Write the host name to FILE.")
  Path hostnameFile;

  @Option(
      names = "--attributes",
      paramLabel = "FILE",
      description = "Write the attributes to FILE as KEY=value lines (an EnvironmentFile).")
  Path attributesFile;

  @Option(names = "--json", description = "Print every value as one JSON object.")
  boolean json;

  @Parameters(
      arity = "0..1",
      paramLabel = "KEY",
      description = "Print only this value (an attribute or a JSON field name).")
  String key;

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (json && key != null) {
      throw new CommandLine.ParameterException(
          spec.commandLine(), "--json prints every value; give a KEY or --json, not both");
    }
    return PlatformQuery.run(
        "metadata", options, mediaOptions, err, (data, span) -> write(data, span, out, err));
  }

  private int write(PlatformData data, Span span, PrintWriter out, PrintWriter err)
      throws IOException {
    Map<String, String> attributes = attributes(data, err);
    span.setAttribute("attributes", (long) attributes.size());
    if (hostnameFile != null) {
      if (data.hostname() == null || Names.hostProblem(data.hostname()).isPresent()) {
        err.println("kvprov metadata: no valid host name to write to " + hostnameFile);
        return ExitCode.FAILED.code;
      }
      AtomicFiles.write(hostnameFile, data.hostname() + "\n", "rw-r--r--", -1, -1);
    }
    if (attributesFile != null) {
      StringBuilder lines = new StringBuilder();
      attributes.forEach((k, v) -> lines.append(k).append('=').append(v).append('\n'));
      AtomicFiles.write(attributesFile, lines.toString(), "rw-r--r--", -1, -1);
    }
    Map<String, Object> fields = json(data);
    if (key != null) {
      String attribute = key.toUpperCase(Locale.ROOT);
      Object value =
          attributes.containsKey(attribute)
              ? attributes.get(attribute)
              : fields.get(key.toLowerCase(Locale.ROOT));
      if (value == null) {
        boolean known =
            ATTRIBUTES.contains(attribute) || fields.containsKey(key.toLowerCase(Locale.ROOT));
        err.println(
            "kvprov metadata: "
                + key
                + (known
                    ? " has no value on this VM"
                    : " is not a key; the keys are "
                        + String.join(", ", ATTRIBUTES)
                        + ", and the JSON fields "
                        + String.join(", ", fields.keySet())));
        return ExitCode.FAILED.code;
      }
      out.println(value instanceof String s ? s : MAPPER.writeValueAsString(value));
    } else if (json) {
      out.println(MAPPER.writeValueAsString(fields));
    } else if (hostnameFile == null && attributesFile == null) {
      attributes.forEach((k, v) -> out.println(k + "=" + v));
    }
    out.flush();
    return ExitCode.OK.code;
  }

  /**
   * The attributes, named like Afterburn's ({@code AFTERBURN_AZURE_VMSIZE} is our {@code
   * KVPROV_AZURE_VMSIZE}); those IMDS did not give are left out. A value IMDS sent with a control
   * character is left out too, and said: it would break the file's lines.
   */
  static Map<String, String> attributes(PlatformData data, PrintWriter err) {
    Map<String, Optional<String>> all = new LinkedHashMap<>();
    for (Attribute attribute : Attribute.values()) {
      all.put(attribute.attributeName(), attribute.value.apply(data));
    }
    Map<String, String> attributes = new LinkedHashMap<>();
    all.forEach(
        (name, value) ->
            value
                .filter(v -> !v.isBlank())
                .ifPresent(
                    v -> {
                      if (Names.hasControlCharacter(v) || v.contains("\\") || v.contains("\"")) {
                        err.println(
                            "kvprov metadata: warning: "
                                + name
                                + " left out: its value holds a control character or a quote");
                      } else {
                        attributes.put(name, v);
                      }
                    }));
    return attributes;
  }

  /** Every value for scripts; the password only as whether one was given. */
  static Map<String, Object> json(PlatformData data) {
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put("vm_id", data.vmId());
    fields.put("vm_name", data.vmName());
    fields.put("location", data.location());
    fields.put("vm_size", data.vmSize());
    fields.put("hostname", data.hostname());
    fields.put("admin_username", data.adminUser());
    fields.put("password_given", data.password().isPresent());
    fields.put("password_login", data.passwordLogin());
    fields.put("ssh_keys", data.keys().stream().map(SshKey::keyData).toList());
    fields.put("ipv4_private", data.privateIpv4().orElse(null));
    fields.put("ipv4_public", data.publicIpv4().orElse(null));
    return fields;
  }
}
