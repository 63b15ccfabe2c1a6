package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.SourceVisitor;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolBytesVisitor;
import dev.kvprov.kvp.PoolEntry;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code kvp dump}: every record as stored, {@code KEY=VALUE}, never cut. */
@Command(
    name = "dump",
    mixinStandardHelpOptions = true,
    description = {
      "Every record as stored, one KEY=VALUE line each, never cut.",
      "",
      "Nothing is joined or decoded (that is kvp list); control characters are shown",
      "as \\n, \\t, \\xHH so that each record stays on its line. Damaged records are",
      "dumped as read, and what is wrong with them said on stderr."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp dump",
      "  kvp dump --root /mnt/rescued-disk | grep PROVISIONING_REPORT"
    })
final class DumpCommand implements Callable<Integer> {
  private static final byte[] EQUALS = {'='};

  /** Records as bytes: a dump copies them out as stored, decoding only what is not ASCII. */
  private interface DumpVisitor extends SourceVisitor, PoolBytesVisitor {}

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Override
  public Integer call() {
    ByteOut out = ByteOut.to(spec.commandLine().getOut());
    PrintWriter err = spec.commandLine().getErr();
    int[] problems = new int[1];
    boolean ok =
        PoolReading.sources(
            input,
            spec,
            source ->
                new DumpVisitor() {
                  @Override
                  public void entry(
                      int index, long offset, ByteBuffer key, ByteBuffer value, boolean intact) {
                    out.printable(key).bytes(EQUALS).printable(value).newline();
                  }

                  /** A record of a host-side export, which has only text. */
                  @Override
                  public void entry(PoolEntry entry) {
                    out.text(Text.printable(entry.key()) + "=" + Text.printable(entry.value()))
                        .newline();
                  }

                  @Override
                  public void problem(KvpProblem problem) {
                    problems[0]++;
                    err.println("kvp dump: " + source.name() + ": " + problem);
                  }
                },
            source -> out.text("# " + Text.printable(source.name())).newline());
    out.flush();
    return (!ok ? ExitCode.IO : problems[0] == 0 ? ExitCode.OK : ExitCode.FOUND).code;
  }
}
