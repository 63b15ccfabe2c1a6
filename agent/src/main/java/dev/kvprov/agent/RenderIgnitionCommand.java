package dev.kvprov.agent;

import dev.kvprov.agent.ignition.IgnitionFragment;
import dev.kvprov.agent.os.AtomicFiles;
import dev.kvprov.agent.os.Names;
import dev.kvprov.agent.provision.PlatformData;
import dev.kvprov.agent.provision.steps.SshKey;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvprov render-ignition}: the platform's data as an Ignition config fragment. */
@Command(
    name = "render-ignition",
    mixinStandardHelpOptions = true,
    description = {
      "Print an Ignition config (spec 3.4.0) from IMDS and the provisioning media.",
      "",
      "The admin user with its SSH keys (and password hash, when the media has a",
      "password), and /etc/hostname: what kvprov's steps would set, for images where",
      "Ignition applies it. Merge it into the image's config, or hand it to Ignition",
      "as a platform config. The output holds a password hash: -o FILE is written",
      "mode 0600."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvprov render-ignition",
      "  kvprov render-ignition --groups sudo,docker -o /run/ignition/kvprov.ign"
    })
final class RenderIgnitionCommand implements Callable<Integer> {
  /** A group name as shadow-utils takes it. */
  private static final Pattern GROUP = Pattern.compile("[a-z_][a-z0-9_-]{0,30}");

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin ConfigOptions options;

  @CommandLine.Mixin MediaOptions mediaOptions;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FILE",
      description = "Write the config to FILE (mode 0600) instead of stdout.")
  Path output;

  @Option(
      names = "--groups",
      paramLabel = "GROUP[,GROUP…]",
      split = ",",
      description =
          "Supplementary groups of the admin user (none by default: Ignition fails on"
              + " a group the image lacks).")
  List<String> groups = new ArrayList<>();

  @Override
  public Integer call() throws InterruptedException {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    for (String group : groups) {
      if (!GROUP.matcher(group).matches()) {
        // Ignition fails the whole boot on a group it cannot make: refuse it here.
        throw new CommandLine.ParameterException(
            spec.commandLine(), "--groups: '" + group + "' is not a group name");
      }
    }
    return PlatformQuery.run(
        "render-ignition",
        options,
        mediaOptions,
        err,
        (data, span) -> render(data, span, out, err));
  }

  private int render(PlatformData data, Span span, PrintWriter out, PrintWriter err)
      throws IOException {
    Optional<String> problem =
        Names.hostProblem(data.hostname()).or(() -> Names.userProblem(data.adminUser()));
    for (int i = 0; i < data.keys().size(); i++) {
      int index = i;
      SshKey key = data.keys().get(i);
      // Ignition installs every key or fails the boot: a key that cannot be used stops here.
      problem =
          problem.or(
              () ->
                  key.problem()
                      .map(p -> "the SSH key at index " + index + " cannot be used: " + p));
    }
    if (problem.isPresent()) {
      err.println("kvprov render-ignition: " + problem.get());
      return ExitCode.FAILED.code;
    }
    span.setAttribute("user", data.adminUser());
    span.setAttribute("keys", (long) data.keys().size());
    span.setAttribute("password_hash", data.password().isPresent() ? "set" : "none");
    String config =
        IgnitionFragment.render(
            data.hostname(),
            data.adminUser(),
            groups,
            data.keys().stream().map(SshKey::keyData).toList(),
            data.password());
    if (output != null) {
      AtomicFiles.write(output, config, "rw-------", -1, -1);
      span.setAttribute("output", output.toString());
    } else {
      out.print(config);
      out.flush();
    }
    return ExitCode.OK.code;
  }
}
