package dev.kvprov.inspect;

import java.time.Instant;
import picocli.CommandLine;

/** Reads a time as RFC 3339 ({@code 2026-11-22T05:16:00Z}, any offset) or as epoch seconds. */
final class InstantConverter implements CommandLine.ITypeConverter<Instant> {
  @Override
  public Instant convert(String text) {
    if (text.matches("\\d{1,12}(\\.\\d{1,9})?")) {
      long nanos = new java.math.BigDecimal(text).movePointRight(9).longValueExact();
      return Instant.ofEpochSecond(0, nanos);
    }
    Instant parsed = SpanForest.time(text);
    if (parsed == null) {
      throw new CommandLine.TypeConversionException(
          "not a time: " + text + " (use RFC 3339, e.g. 2026-11-22T05:16:00Z, or epoch seconds)");
    }
    return parsed;
  }
}
