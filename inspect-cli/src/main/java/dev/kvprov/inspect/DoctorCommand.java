package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.kvprov.kvp.KvpLimits;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolVisitor;
import dev.kvprov.kvp.RecordCodec;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.attribute.PosixFilePermissions;
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
      "Check a pool's health: torn records, invalid UTF-8, missing NULs, keys and values the host",
      "will cut (over 254/1022 bytes), keys that collide ignoring case, too many records, and the",
      "file's mode. Each finding names its record and byte offset."
    },
    footer = {
      "",
      "Exit status: 0 healthy; 1 problems found; 2 usage error; 3 I/O error.",
      "",
      "Examples:",
      "  kvp doctor",
      "  kvp doctor --file pool1-1795322355.kvp --json"
    })
final class DoctorCommand implements Callable<Integer> {
  /** Past this, hosts and tools struggle: every writer should stay well below. */
  static final int TOO_MANY_RECORDS = 1024;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @CommandLine.Mixin PoolInput input;

  @Option(
      names = "--json",
      description = "{\"healthy\": …, \"problems\": [{kind, record, offset, message}]}")
  boolean json;

  record Finding(String kind, int record, long offset, String message) {}

  @Override
  public Integer call() {
    List<Finding> findings = new ArrayList<>();
    Map<String, Integer> keysFolded = new HashMap<>();
    int[] count = new int[1];
    try {
      input.scan(
          System.in,
          new PoolVisitor() {
            @Override
            public void problem(KvpProblem p) {
              findings.add(
                  new Finding(
                      p.kind().name().toLowerCase(Locale.ROOT),
                      p.recordIndex(),
                      p.offset(),
                      p.detail()));
            }

            @Override
            public void entry(PoolEntry e) {
              count[0]++;
              int keyBytes = e.key().getBytes(UTF_8).length;
              int valueBytes = e.value().getBytes(UTF_8).length;
              if (keyBytes > KvpLimits.HOST_SAFE.maxKeyBytes()) {
                findings.add(
                    new Finding(
                        "key_cut_by_host",
                        e.index(),
                        e.offset(),
                        "the key is " + keyBytes + " bytes; the host shows only the first 254"));
              }
              if (valueBytes > KvpLimits.HOST_SAFE.maxValueBytes()) {
                findings.add(
                    new Finding(
                        "value_cut_by_host",
                        e.index(),
                        e.offset() + RecordCodec.KEY_SIZE,
                        "the value is "
                            + valueBytes
                            + " bytes; the host shows only the first 1022"));
              }
              Integer earlier = keysFolded.putIfAbsent(e.key().toLowerCase(Locale.ROOT), e.index());
              if (earlier != null) {
                findings.add(
                    new Finding(
                        "duplicate_key",
                        e.index(),
                        e.offset(),
                        "the key repeats record "
                            + earlier
                            + "'s (ignoring case): the host shows one of them"));
              }
            }
          });
    } catch (IOException e) {
      spec.commandLine()
          .getErr()
          .println("kvp doctor: " + input.describe() + ": " + e.getMessage());
      return 3;
    }
    if (count[0] > TOO_MANY_RECORDS) {
      findings.add(
          new Finding(
              "too_many_records",
              -1,
              -1,
              count[0] + " records; hosts and tools struggle past " + TOO_MANY_RECORDS));
    }
    if (!"-".equals(input.file)) {
      try {
        String mode = PosixFilePermissions.toString(Files.getPosixFilePermissions(input.path()));
        if (mode.charAt(7) == 'w' || mode.charAt(4) == 'w') {
          findings.add(
              new Finding("file_mode", -1, -1, "mode " + mode + ": others can rewrite the pool"));
        }
      } catch (IOException | UnsupportedOperationException e) {
        // no POSIX modes here (a copy on another system): nothing to say
      }
    }
    print(findings, count[0]);
    return findings.isEmpty() ? 0 : 1;
  }

  private void print(List<Finding> findings, int records) {
    PrintWriter out = spec.commandLine().getOut();
    if (json) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode node =
          mapper.createObjectNode().put("healthy", findings.isEmpty()).put("records", records);
      ArrayNode problems = node.putArray("problems");
      for (Finding f : findings) {
        problems
            .addObject()
            .put("kind", f.kind())
            .put("record", f.record())
            .put("offset", f.offset())
            .put("message", f.message());
      }
      out.println(node);
      return;
    }
    out.println(
        input.describe()
            + ": "
            + records
            + " records, "
            + (findings.isEmpty() ? "healthy" : findings.size() + " problem(s)"));
    for (Finding f : findings) {
      String where =
          f.record() < 0 ? "" : "record " + f.record() + " at offset " + f.offset() + ": ";
      out.println("  " + f.kind() + ": " + where + f.message());
    }
  }
}
