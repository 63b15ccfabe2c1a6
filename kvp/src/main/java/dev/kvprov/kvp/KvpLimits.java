package dev.kvprov.kvp;

/**
 * How large a key and a value may be, in UTF-8 bytes, when a record is written.
 *
 * <p>The field sizes on disk are 512 and 2048 bytes, but the host reads a record through a UTF-16
 * conversion that keeps at most 254 key and 1022 value code units: anything longer arrives cut.
 * Writers that want their data seen intact on the host use {@link #HOST_SAFE}.
 */
public enum KvpLimits {
  /** Key ≤ 254 bytes, value ≤ 1022 bytes: reaches the host intact. The default for writing. */
  HOST_SAFE(254, 1022),
  /** Key ≤ 511 bytes, value ≤ 2047 bytes: fills the on-disk fields but always keeps a NUL. */
  WIRE(511, 2047);

  private final int maxKeyBytes;
  private final int maxValueBytes;

  KvpLimits(int maxKeyBytes, int maxValueBytes) {
    this.maxKeyBytes = maxKeyBytes;
    this.maxValueBytes = maxValueBytes;
  }

  public int maxKeyBytes() {
    return maxKeyBytes;
  }

  public int maxValueBytes() {
    return maxValueBytes;
  }

  String label() {
    return this == HOST_SAFE ? "host-safe" : "wire";
  }
}
