package dev.kvprov.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code kvprov provision} on {@code /} inside a build chroot is refused, before the Azure check
 * (on Azure too). A real chroot would need a JVM inside it and a PID 1 whose root this process may
 * look at; the command is given a proc whose PID 1 has another root instead — the same {@code
 * isSameFile} on a real link that the chroot case meets.
 */
class ProvisionChrootTest {
  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  private int provision(Path proc, String... args) {
    ProvisionCommand command = new ProvisionCommand();
    command.proc = proc;
    CommandLine cli = new CommandLine(command);
    cli.setOut(new PrintWriter(out, true));
    cli.setErr(new PrintWriter(err, true));
    return cli.execute(args);
  }

  @Test
  void onSlash_inAChroot_isRefused_inOneLine_exit2() throws Exception {
    Path proc = Files.createDirectories(dir.resolve("proc"));
    Files.createDirectories(proc.resolve("self"));
    Files.createDirectories(proc.resolve("1"));
    Files.createSymbolicLink(proc.resolve("1/root"), Files.createDirectories(dir.resolve("host")));

    assertThat(provision(proc, "--root", "/")).isEqualTo(2);

    assertThat(err.toString())
        .isEqualTo(
            "kvprov provision: this is a chroot (/ is not the root of PID 1), not the running"
                + " system; use --root DIR to provision an image, or --force"
                + System.lineSeparator());
  }

  @Test
  void onSlash_withoutProc_isRefused_asAChroot() {
    assertThat(provision(dir.resolve("no-proc"))).isEqualTo(2);

    assertThat(err.toString())
        .startsWith("kvprov provision: this is taken for a chroot (")
        .endsWith("use --root DIR to provision an image, or --force" + System.lineSeparator());
  }
}
