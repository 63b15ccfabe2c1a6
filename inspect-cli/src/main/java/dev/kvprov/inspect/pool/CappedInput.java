package dev.kvprov.inspect.pool;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * An input that fails once more than {@code cap} bytes have come, so that an endless one ({@code
 * yes | kvp list --file -}) ends with a reason instead of running for ever.
 */
public final class CappedInput extends FilterInputStream {
  private final long cap;
  private long read;

  public CappedInput(InputStream in, long cap) {
    super(in);
    this.cap = cap;
  }

  @Override
  public int read() throws IOException {
    int b = super.read();
    if (b >= 0) {
      count(1);
    }
    return b;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    int n = super.read(buffer, offset, length);
    if (n > 0) {
      count(n);
    }
    return n;
  }

  private void count(long n) throws IOException {
    read += n;
    if (read > cap) {
      throw new IOException(
          "more than " + (cap >> 20) + " MiB: no pool or export is that large; stopped reading");
    }
  }
}
