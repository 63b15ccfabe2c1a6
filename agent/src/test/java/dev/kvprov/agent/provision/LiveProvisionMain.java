package dev.kvprov.agent.provision;

import dev.kvprov.agent.os.CommandResult;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.os.ProcessCommandRunner;
import dev.kvprov.agent.os.SystemRoot;
import dev.kvprov.agent.ovf.OvfParser;
import dev.kvprov.agent.provision.steps.SshKey;
import io.opentelemetry.api.OpenTelemetry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Provisions the live root ({@code /}) — meant to run only inside a private mount and UTS namespace
 * whose {@code /etc} and {@code /home} are scratch copies (see {@link LiveModeTest}). Prints every
 * command it runs, then {@code done}.
 *
 * <p>Usage: {@code LiveProvisionMain OVF_ENV_XML}
 */
public final class LiveProvisionMain {
  private LiveProvisionMain() {}

  public static void main(String[] args) throws Exception {
    ProcessCommandRunner real = new ProcessCommandRunner(OpenTelemetry.noop().getTracer("t"));
    CommandRunner printing =
        (argv, stdin, timeout) -> {
          System.out.println("command: " + String.join(" ", ProcessCommandRunner.shown(argv)));
          CommandResult result = real.run(argv, stdin, timeout);
          System.out.println("exit: " + result.exitCode());
          return result;
        };
    var env = OvfParser.parse(Files.newInputStream(Path.of(args[0])));
    Provisioner.builder(SystemRoot.live(), printing, OpenTelemetry.noop().getTracer("t"))
        .hostname("live-test")
        .user("liveuser")
        .password(env.password())
        .passwordAuthentication(false)
        .sshKeys(List.of(new SshKey(ProvisionerTest.KEY, Optional.empty())))
        .build()
        .provision();
    System.out.println("done");
  }
}
