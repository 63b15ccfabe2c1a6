package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.SourceVisitor;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolBytesVisitor;
import dev.kvprov.kvp.PoolEntry;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code kvp dump}: every record as stored, {@code KEY=VALUE}, never cut. Its model is built in
 * code ({@link CommandModels}).
 */
final class DumpCommand implements Callable<Integer> {
  private static final byte[] EQUALS = {'='};

  /** Records as bytes: a dump copies them out as stored, decoding only what is not ASCII. */
  private interface DumpVisitor extends SourceVisitor, PoolBytesVisitor {}

  private CommandSpec spec;
  private final PoolOptions input = new PoolOptions();

  private DumpCommand() {}

  static CommandSpec model() {
    DumpCommand dump = new DumpCommand();
    dump.spec =
        CommandModels.command(
            dump,
            new String[] {
              "Every record as stored, one KEY=VALUE line each, never cut.",
              "",
              "Nothing is joined or decoded (that is kvp list); control characters are shown",
              "as \\n, \\t, \\xHH so that each record stays on its line. Damaged records are",
              "dumped as read, and what is wrong with them said on stderr."
            },
            "",
            "",
            "Examples:",
            "  kvp dump",
            "  kvp dump --root /mnt/rescued-disk | grep PROVISIONING_REPORT");
    dump.spec.addMixin("input", CommandModels.poolOptions(dump.spec, dump.input));
    return CommandModels.withStandardHelp(dump.spec);
  }

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
