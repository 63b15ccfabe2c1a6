package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;

/**
 * Builds pool bytes slot by slot, as any writer could have written them, damage included: the test
 * side's own encoder, independent of the library's.
 */
public final class RawPool {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  public RawPool add(String key, String value) {
    return add(key.getBytes(UTF_8), value.getBytes(UTF_8));
  }

  public RawPool add(byte[] key, byte[] value) {
    byte[] slot = new byte[2560];
    System.arraycopy(key, 0, slot, 0, Math.min(key.length, 512));
    System.arraycopy(value, 0, slot, 512, Math.min(value.length, 2048));
    bytes.writeBytes(slot);
    return this;
  }

  public RawPool addBytes(byte[] raw) {
    bytes.writeBytes(raw);
    return this;
  }

  public byte[] bytes() {
    return bytes.toByteArray();
  }
}
