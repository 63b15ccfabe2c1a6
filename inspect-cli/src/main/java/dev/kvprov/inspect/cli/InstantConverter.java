package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.writers.SpanForest;
import java.time.Instant;
import picocli.CommandLine;

/** Reads a time as RFC 3339 ({@code 2026-11-22T05:16:00Z}, any offset) or as epoch seconds. */
final class InstantConverter implements CommandLine.ITypeConverter<Instant> {
  @Override
  public Instant convert(String text) {
    if (text.matches("\\d{1,18}(\\.\\d{1,9})?")) {
      java.math.BigDecimal seconds = new java.math.BigDecimal(text);
      try {
        return Instant.ofEpochSecond(
            seconds.setScale(0, java.math.RoundingMode.FLOOR).longValueExact(),
            seconds.remainder(java.math.BigDecimal.ONE).movePointRight(9).intValueExact());
      } catch (ArithmeticException | java.time.DateTimeException e) {
        throw new CommandLine.TypeConversionException("not a time: " + text + " (too far out)");
      }
    }
    Instant parsed = SpanForest.time(text);
    if (parsed == null) {
      throw new CommandLine.TypeConversionException(
          "not a time: " + text + " (use RFC 3339, e.g. 2026-11-22T05:16:00Z, or epoch seconds)");
    }
    return parsed;
  }
}
