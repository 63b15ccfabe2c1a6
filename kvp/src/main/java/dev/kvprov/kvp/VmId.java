package dev.kvprov.kvp;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The Azure VM id as the platform knows it, read from the SMBIOS product UUID.
 *
 * <p>On Generation 1 VMs (BIOS, no {@code /sys/firmware/efi}) firmware stores the first three
 * groups of the UUID in little-endian order; they are swapped back so the id matches the
 * platform's. When the id cannot be read, the value is the explicit {@link #UNKNOWN} rather than a
 * zero UUID that every clone of an image would share.
 *
 * @param value the lower-case UUID, or {@code "unknown"}
 * @param source where the value came from, or why it is unknown; for diagnostics
 */
public record VmId(String value, String source) {
  /** The value of an id that could not be read. */
  public static final String UNKNOWN = "unknown";

  private static final Pattern UUID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  public VmId {
    requireNonNull(value, "value");
    requireNonNull(source, "source");
    if (!value.equals(UNKNOWN) && !UUID.matcher(value).matches()) {
      throw new IllegalArgumentException("not a lower-case UUID: " + value);
    }
  }

  /** This machine's VM id. */
  public static VmId system() {
    return read(Path.of("/"));
  }

  /**
   * Reads {@code sys/class/dmi/id/product_uuid} under {@code root}, byte-swapping on Generation 1
   * VMs. Never throws: an unreadable or implausible id gives an unknown {@code VmId} saying why.
   */
  public static VmId read(Path root) {
    requireNonNull(root, "root");
    Path file = root.resolve("sys/class/dmi/id/product_uuid");
    String raw;
    try {
      raw = Files.readString(file).trim().toLowerCase(Locale.ROOT);
    } catch (IOException e) {
      return unknown(file + " unreadable: " + IoErrors.reason(e)); // a sentence, no class name
    } catch (RuntimeException e) {
      return unknown(file + " unreadable: " + e);
    }
    VmId parsed = parse(raw, file.toString());
    if (!parsed.isKnown()) {
      return parsed;
    }
    if (Files.isDirectory(root.resolve("sys/firmware/efi"))) {
      return new VmId(raw, file + " (Generation 2: as stored)");
    }
    return new VmId(
        swapGeneration1(raw),
        file + " (no sys/firmware/efi, so taken as Generation 1: first three groups swapped)");
  }

  /**
   * An id given as text, as the platform writes it (IMDS's {@code compute.vmId}): any case,
   * surrounding blanks ignored, no byte swapping. Never throws: text that is no UUID, or is the
   * all-zero or all-{@code f} placeholder, gives an unknown {@code VmId} saying why.
   *
   * @param from where the text came from, e.g. {@code IMDS compute.vmId}
   */
  public static VmId parse(String text, String from) {
    requireNonNull(from, "from");
    if (text == null) {
      return unknown(from + " is missing");
    }
    String id = text.strip().toLowerCase(Locale.ROOT);
    if (!UUID.matcher(id).matches()) {
      return unknown(from + " does not hold a UUID: " + printable(id));
    }
    String digits = id.replace("-", "");
    if (digits.chars().allMatch(c -> c == '0') || digits.chars().allMatch(c -> c == 'f')) {
      return unknown(from + " holds the placeholder UUID " + id);
    }
    return new VmId(id, from);
  }

  /**
   * Swaps the byte order of the first three groups: {@code 550e8400-e29b-41d4-…} → {@code
   * 00840e55-9be2-d441-…}.
   */
  static String swapGeneration1(String uuid) {
    return reverseBytes(uuid.substring(0, 8))
        + "-"
        + reverseBytes(uuid.substring(9, 13))
        + "-"
        + reverseBytes(uuid.substring(14, 18))
        + uuid.substring(18);
  }

  private static String reverseBytes(String hex) {
    StringBuilder out = new StringBuilder(hex.length());
    for (int i = hex.length() - 2; i >= 0; i -= 2) {
      out.append(hex, i, i + 2);
    }
    return out.toString();
  }

  private static VmId unknown(String why) {
    return new VmId(UNKNOWN, why);
  }

  private static String printable(String s) {
    String cut = s.length() > 64 ? s.substring(0, 64) + "…" : s;
    return cut.replaceAll("\\p{Cntrl}", "?");
  }

  public boolean isKnown() {
    return !value.equals(UNKNOWN);
  }

  @Override
  public String toString() {
    return value;
  }
}
