package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.CappedInput;
import dev.kvprov.inspect.pool.Items;
import dev.kvprov.inspect.pool.Phases;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.pool.PreparedItems;
import dev.kvprov.inspect.pool.SourceVisitor;
import dev.kvprov.inspect.spans.BootSection;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolBytesVisitor;
import dev.kvprov.kvp.PoolEntry;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import picocli.CommandLine;

/**
 * Reads what a command's {@link PoolOptions} name, source after source, and says on its stderr, in
 * one line, why an input could not be read.
 */
final class PoolReading {
  private PoolReading() {}

  /**
   * Streams each source's records to the visitor {@code visitorFor} makes for it, telling {@code
   * onSource} before each one when there is more than one. On an I/O error, says why on stderr
   * (naming the command and the input) and returns false: the command exits 3.
   */
  static boolean sources(
      PoolOptions options,
      CommandLine.Model.CommandSpec spec,
      Function<PoolSource, ? extends SourceVisitor> visitorFor,
      Consumer<PoolSource> onSource) {
    Phases.mark("arguments parsed, command begun");
    String reading = options.describe();
    options
        .notRead()
        .forEach(why -> spec.commandLine().getErr().println("kvp " + spec.name() + ": " + why));
    try {
      List<PoolSource> sources = options.sources();
      for (PoolSource source : sources) {
        reading = source.name();
        if (sources.size() > 1) {
          onSource.accept(source);
        }
        SourceVisitor to = visitorFor.apply(source);
        Counting visitor =
            to instanceof PoolBytesVisitor bytes ? new CountingBytes(to, bytes) : new Counting(to);
        source.scan(new CappedInput(System.in, PoolSource.MAX_STDIN_BYTES), visitor);
        visitor.finish();
        if (visitor.seen == 0) {
          // Said, so that an empty pool is never mistaken for a command that printed nothing.
          spec.commandLine()
              .getErr()
              .println("kvp " + spec.name() + ": " + reading + ": no records");
        }
      }
      Phases.mark("pool read (and its items handed on, but the last few)");
      return true;
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("kvp " + spec.name() + ": " + reading + ": " + PoolSource.why(e));
      return false;
    }
  }

  /**
   * Streams the logical items to {@code sink}, source by source (pieces are never joined across
   * sources); otherwise as {@link #sources}.
   */
  static boolean items(
      PoolOptions options,
      CommandLine.Model.CommandSpec spec,
      Consumer<Item> sink,
      Consumer<PoolSource> onSource) {
    return sources(options, spec, source -> new Items(sink), onSource);
  }

  /**
   * Streams the logical items as {@link #items(PoolOptions, CommandLine.Model.CommandSpec,
   * Consumer, Consumer)} does, made ready by {@code prepare} on every core ({@link InPoolOrder}):
   * the sink {@code sinkFor} gives for a source (asked before each one, whatever their number) gets
   * its results in pool order, on this thread, all of them before the next source's {@code
   * onSource} and sink.
   */
  static <T> boolean items(
      PoolOptions options,
      CommandLine.Model.CommandSpec spec,
      Function<Item, T> prepare,
      Function<PoolSource, Consumer<T>> sinkFor,
      Consumer<PoolSource> onSource) {
    try (PreparedItems<T> ready = new PreparedItems<>(prepare)) {
      boolean read =
          sources(
              options,
              spec,
              source -> ready.next(sinkFor.apply(source)),
              source -> {
                ready.drain(); // before the next source's heading
                onSource.accept(source);
              });
      ready.drain();
      Phases.mark("the last items handed on");
      return read;
    }
  }

  /** {@link #items(PoolOptions, CommandLine.Model.CommandSpec, Consumer, Consumer)}, unmarked. */
  static boolean items(
      PoolOptions options, CommandLine.Model.CommandSpec spec, Consumer<Item> sink) {
    return items(options, spec, sink, source -> {});
  }

  /**
   * Reads what the options name, one section per source, oldest boot first.
   *
   * @return null when an input could not be read (said on stderr)
   */
  static List<BootSection> boots(PoolOptions options, CommandLine.Model.CommandSpec spec) {
    BootSection.Filling boots = new BootSection.Filling();
    return items(options, spec, boots::read, boots::next, source -> {}) ? boots.sections() : null;
  }

  /** A visitor that counts what went by (records and problems) on its way to another. */
  private static class Counting implements SourceVisitor {
    private final SourceVisitor to;
    int seen;

    Counting(SourceVisitor to) {
      this.to = to;
    }

    @Override
    public void entry(PoolEntry entry) {
      seen++;
      to.entry(entry);
    }

    @Override
    public void entry(PoolEntry entry, ByteBuffer value) {
      seen++;
      to.entry(entry, value);
    }

    @Override
    public void problem(KvpProblem problem) {
      seen++;
      to.problem(problem);
    }

    @Override
    public void finish() {
      to.finish();
    }
  }

  /** A counting visitor for one that takes records as bytes, so the scanner decodes no text. */
  private static final class CountingBytes extends Counting implements PoolBytesVisitor {
    private final PoolBytesVisitor bytes;

    CountingBytes(SourceVisitor to, PoolBytesVisitor bytes) {
      super(to);
      this.bytes = bytes;
    }

    @Override
    public void entry(int index, long offset, ByteBuffer key, ByteBuffer value, boolean intact) {
      seen++;
      bytes.entry(index, offset, key, value, intact);
    }
  }
}
