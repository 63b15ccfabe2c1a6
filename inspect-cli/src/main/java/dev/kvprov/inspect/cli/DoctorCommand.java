package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.inspect.pool.Items;
import dev.kvprov.inspect.pool.PoolSource;
import dev.kvprov.inspect.pool.SourceVisitor;
import dev.kvprov.inspect.text.Json;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.inspect.writers.Writer;
import dev.kvprov.inspect.writers.Writers;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.RecordCodec;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvp doctor}: pool health, each finding with its record and byte offset. */
@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    description = {
      "Check a pool's health; each finding with its record and byte offset.",
      "",
      "Finds torn records, invalid UTF-8, missing NULs, keys and values the host",
      "will cut (over 254/1022 bytes) and characters it loses between two records,",
      "keys that collide ignoring case, too many records, a pool others may write,",
      "and a live pool left from an earlier boot."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp doctor",
      "  kvp doctor --file pool1-1795322355.kvp --json"
    })
final class DoctorCommand implements Callable<Integer> {
  /** Past this, hosts and tools struggle: every writer should stay well below. */
  static final int TOO_MANY_RECORDS = 1024;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolOptions input;

  @Option(
      names = "--boot-time",
      paramLabel = "TIME",
      description = "Judge staleness against this boot time (RFC 3339) instead of this machine's.",
      converter = InstantConverter.class)
  Instant bootTime;

  @Option(
      names = "--json",
      description = "{\"healthy\": …, \"problems\": [{kind, record, offset, message}]}")
  boolean json;

  record Finding(String source, String kind, int record, long offset, String message) {}

  /**
   * A finding that is no finding when its record is a piece of a whole item together with record
   * {@code pieceOf} (itself, for a piece's invalid UTF-8; the earlier record, for a repeated key).
   */
  private record PieceFinding(Finding finding, int pieceOf) {}

  /**
   * Findings listed per file, and records whose keys are compared for duplicates: past these, a
   * damaged or huge input (gigabytes of noise) is summed up, so memory stays bounded.
   */
  static final int MAX_LISTED = 1000;

  static final int MAX_KEYS_COMPARED = 20_000;

  @Override
  public Integer call() {
    List<Finding> findings = new ArrayList<>();
    Map<String, Integer> records = new java.util.LinkedHashMap<>();
    if (!PoolReading.sources(input, spec, part -> check(part, findings, records), part -> {})) {
      return ExitCode.IO.code;
    }
    input
        .unreadableArchives()
        .ifPresent(
            why ->
                findings.add(0, new Finding(input.describe(), "archives_unreadable", -1, -1, why)));
    print(findings, records);
    return (findings.isEmpty() ? ExitCode.OK : ExitCode.FOUND).code;
  }

  /** Checks one pool file or export as it is read; its record count goes into {@code records}. */
  private SourceVisitor check(
      PoolSource part, List<Finding> findings, Map<String, Integer> records) {
    String source = part.name();
    Map<String, Integer> keysFolded = new HashMap<>();
    int[] count = new int[1];
    int[] unlisted = new int[1];
    // Adds a finding while this file has fewer than MAX_LISTED; counts it otherwise.
    List<Finding> listed = new ArrayList<>();
    java.util.function.Consumer<Finding> add =
        f -> {
          if (listed.size() < MAX_LISTED) {
            listed.add(f);
          } else {
            unlisted[0]++;
          }
        };
    // A writer may cut one value into pieces under one key (azure-init) or between the bytes of
    // one character: that is its format, not damage. Such findings wait until the pieces are
    // joined into their item, and go only if the item is not whole.
    Map<Integer, List<PieceFinding>> waiting = new HashMap<>();
    // What the records' bytes say is a finding already; what is left of an item's problems is
    // its writer's format broken (pieces missing, a payload that does not decode).
    java.util.Set<String> recordProblems = new java.util.HashSet<>();
    // Where each record starts, until its item is put together: an item's finding names its
    // first record's offset.
    Map<Integer, Long> offsets = new HashMap<>();
    CutCharacters cuts = new CutCharacters(Items.MAX_HELD * 4);
    Items items =
        new Items(
            item -> {
              Writer writer = item.writer();
              long offset = offsets.getOrDefault(item.index(), -1L);
              item.records().forEach(offsets::remove);
              for (String problem : item.problems()) {
                if (!recordProblems.remove(problem) && writer.rule().isDamage(problem)) {
                  add.accept(
                      new Finding(
                          source,
                          "item_damaged",
                          item.index(),
                          offset,
                          writer.name() + ": " + problem));
                }
              }
              boolean whole = item.records().size() > 1 && item.problems().isEmpty();
              cuts.lost(source, item, whole).forEach(add);
              for (int record : item.records()) {
                for (PieceFinding f : waiting.getOrDefault(record, List.of())) {
                  if (!whole || !item.records().contains(f.pieceOf())) {
                    add.accept(f.finding());
                  }
                }
                waiting.remove(record);
              }
            });
    java.util.function.BiConsumer<Integer, PieceFinding> wait =
        (record, f) -> {
          if (waiting.size() < Items.MAX_HELD * 4) {
            waiting.computeIfAbsent(record, r -> new ArrayList<>()).add(f);
          } else {
            add.accept(f.finding());
          }
        };
    return new SourceVisitor() {
      @Override
      public void problem(KvpProblem p) {
        Finding finding =
            new Finding(
                source,
                p.kind().name().toLowerCase(Locale.ROOT),
                p.recordIndex(),
                p.offset(),
                p.detail());
        if (recordProblems.size() < Items.MAX_HELD * 4) {
          recordProblems.add(p.toString());
        }
        if (p.kind() == KvpProblem.Kind.VALUE_INVALID_UTF8) {
          wait.accept(p.recordIndex(), new PieceFinding(finding, p.recordIndex()));
        } else {
          add.accept(finding);
        }
        items.problem(p);
      }

      @Override
      public void entry(PoolEntry e) {
        entry(e, java.nio.ByteBuffer.wrap(e.value().getBytes(UTF_8)));
      }

      @Override
      public void entry(PoolEntry e, java.nio.ByteBuffer value) {
        count[0]++;
        int keyBytes = e.key().getBytes(UTF_8).length;
        // As stored: a value cut inside a character is as long as its bytes, not its
        // replacement characters.
        int valueBytes = value.remaining();
        if (keyBytes > KvpLimits.HOST_SAFE.maxKeyBytes()) {
          add.accept(
              new Finding(
                  source,
                  "key_cut_by_host",
                  e.index(),
                  e.offset(),
                  "the key is " + keyBytes + " bytes; the host shows only the first 254"));
        }
        if (valueBytes > KvpLimits.HOST_SAFE.maxValueBytes()) {
          add.accept(
              new Finding(
                  source,
                  "value_cut_by_host",
                  e.index(),
                  e.offset() < 0 ? -1 : e.offset() + RecordCodec.KEY_SIZE,
                  "the value is " + valueBytes + " bytes; the host shows only the first 1022"));
        }
        Integer earlier =
            keysFolded.size() < MAX_KEYS_COMPARED
                ? keysFolded.putIfAbsent(e.key().toLowerCase(Locale.ROOT), e.index())
                : keysFolded.get(e.key().toLowerCase(Locale.ROOT));
        if (earlier != null) {
          wait.accept(
              e.index(),
              new PieceFinding(
                  new Finding(
                      source,
                      "duplicate_key",
                      e.index(),
                      e.offset(),
                      "the key repeats record "
                          + earlier
                          + "'s (ignoring case): the host shows one of them"),
                  earlier));
        }
        if (offsets.size() < Items.MAX_HELD * 4) {
          offsets.put(e.index(), e.offset());
        }
        if (Writers.of(e.key()).rule().piecesShareKey()) {
          cuts.record(e, value);
        }
        items.entry(e, value);
      }

      /** What the whole file tells, once it has been read. */
      @Override
      public void finish() {
        items.finish();
        waiting.values().forEach(fs -> fs.forEach(f -> add.accept(f.finding())));
        findings.addAll(listed);
        if (unlisted[0] > 0) {
          findings.add(
              new Finding(
                  source,
                  "more_problems",
                  -1,
                  -1,
                  unlisted[0] + " more problems, not listed (doctor lists " + MAX_LISTED + ")"));
        }
        if (keysFolded.size() >= MAX_KEYS_COMPARED) {
          findings.add(
              new Finding(
                  source,
                  "keys_not_compared",
                  -1,
                  -1,
                  "duplicate keys were looked for among the first "
                      + MAX_KEYS_COMPARED
                      + " distinct keys only"));
        }
        records.put(source, count[0]);
        if (count[0] > TOO_MANY_RECORDS) {
          findings.add(
              new Finding(
                  source,
                  "too_many_records",
                  -1,
                  -1,
                  count[0] + " records; hosts and tools struggle past " + TOO_MANY_RECORDS));
        }
        if (part.path() != null) {
          fileMode(part, findings);
        }
        if (part.kind() == PoolSource.Kind.LIVE_POOL) {
          stale(part, findings);
        }
      }
    };
  }

  private static void fileMode(PoolSource part, List<Finding> findings) {
    try {
      String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(part.path()));
      if (mode.charAt(7) == 'w' || mode.charAt(4) == 'w') {
        findings.add(
            new Finding(
                part.name(),
                "file_mode",
                -1,
                -1,
                "mode " + mode + ": others can rewrite the pool"));
      }
    } catch (IOException | UnsupportedOperationException e) {
      // no POSIX modes here (a copy on another system): nothing to say
    }
  }

  /**
   * A live pool last written before this boot still holds the previous boot's records: the first
   * writer of this boot clears it (kvprov archives it first; other writers do not).
   */
  private void stale(PoolSource part, List<Finding> findings) {
    try {
      Instant boot = bootTime != null ? bootTime : BootClock.system().bootTime();
      Instant written = Files.getLastModifiedTime(part.path()).toInstant();
      if (written.isBefore(boot) && Files.size(part.path()) > 0) {
        findings.add(
            new Finding(
                part.name(),
                "stale",
                -1,
                -1,
                "last written "
                    + written
                    + ", before this boot ("
                    + boot
                    + "): its records are from an earlier boot"));
      }
    } catch (IOException | RuntimeException e) {
      // no boot clock (not Linux, no /proc): staleness cannot be judged here
    }
  }

  private void print(List<Finding> findings, Map<String, Integer> records) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectNode node =
          Json.object()
              .put("healthy", findings.isEmpty())
              .put("records", records.values().stream().mapToInt(Integer::intValue).sum());
      ArrayNode problems = node.putArray("problems");
      for (Finding f : findings) {
        problems
            .addObject()
            .put("source", f.source())
            .put("kind", f.kind())
            .put("record", f.record())
            .put("offset", f.offset())
            .put("message", f.message());
      }
      out.println(Json.write(node));
      return;
    }
    for (Map.Entry<String, Integer> part : records.entrySet()) {
      List<Finding> here = findings.stream().filter(f -> f.source().equals(part.getKey())).toList();
      out.println(
          Text.printable(part.getKey())
              + ": "
              + part.getValue()
              + " records, "
              + (here.isEmpty() ? "healthy" : here.size() + " problem(s)"));
      for (Finding f : here) {
        String where =
            f.record() < 0 ? "" : "record " + f.record() + " at offset " + f.offset() + ": ";
        out.println("  " + f.kind() + ": " + where + Text.printable(f.message()));
      }
    }
  }
}
