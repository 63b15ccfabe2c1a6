package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedWriter;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;

/**
 * kvp's stdout: UTF-8 text whatever the locale, buffered (flushed at exit and by commands that
 * follow a pool), and the file descriptor itself for {@link ByteOut}, so that a big pool's lines go
 * out as bytes, never through a character encoder.
 */
final class StdoutWriter extends PrintWriter {
  private final OutputStream bytes;

  private StdoutWriter(OutputStream bytes) {
    super(new BufferedWriter(new OutputStreamWriter(bytes, UTF_8), 1 << 16), false);
    this.bytes = bytes;
  }

  static StdoutWriter open() {
    return new StdoutWriter(new FileOutputStream(FileDescriptor.out));
  }

  /** The bytes behind the text: write here only after {@link #flush}. */
  OutputStream bytes() {
    return bytes;
  }
}
