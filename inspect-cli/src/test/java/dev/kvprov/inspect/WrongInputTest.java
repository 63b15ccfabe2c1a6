package dev.kvprov.inspect;

import static java.nio.charset.StandardCharsets.UTF_16LE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.fixtures.Fixtures;
import dev.kvprov.inspect.cli.WriteTargetsTest;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every read command says what it was given when it is not what it reads: one line naming the
 * input, what it looks like and the fix, exit 3. An empty pool says it has no records. Nothing is
 * silent.
 */
class WrongInputTest {
  private static final List<List<String>> COMMANDS =
      List.of(
          List.of("list"),
          List.of("list", "--json"),
          List.of("list", "--raw"),
          List.of("tree"),
          List.of("tree", "--json"),
          List.of("blame"),
          List.of("timeline"),
          List.of("report"),
          List.of("doctor"),
          List.of("decode"),
          List.of("export", "--otlp-json", "-"),
          List.of("get", "PROVISIONING_REPORT"),
          List.of("watch", "--interval", "1ms", "--timeout", "50ms"));

  @TempDir Path dir;

  private static String[] args(List<String> command, String option, Path file) {
    String[] args = new String[command.size() + 2];
    command.toArray(args);
    args[command.size()] = option;
    args[command.size() + 1] = file.toString();
    return args;
  }

  private void refused(String name, byte[] content, String option, String saying) throws Exception {
    Path file = dir.resolve(name);
    Files.write(file, content);
    for (List<String> command : COMMANDS) {
      if (command.get(0).equals("watch") && !option.equals("--file")) {
        continue;
      }
      CliRun run = CliRun.of(args(command, option, file));

      assertThat(run.exit()).as("%s on %s", command, name).isEqualTo(3);
      assertThat(run.err().lines()).as("%s on %s", command, name).hasSize(1);
      assertThat(run.err())
          .as("%s on %s", command, name)
          .startsWith("kvp " + command.get(0) + ": " + file + ": ")
          .contains(saying);
      assertThat(run.out()).as("%s on %s", command, name).isEmpty();
    }
  }

  @Test
  void randomBytes_areNotAPool() throws Exception {
    byte[] noise = new byte[9000];
    new Random(42).nextBytes(noise);
    refused("noise.bin", noise, "--file", "is not a KVP pool");
  }

  @Test
  void aTarball_isNamed_thoughItsFirstFileNameLooksLikeARecordKey() throws Exception {
    byte[] tar =
        Files.readAllBytes(WriteTargetsTest.tarball(Files.createDirectories(dir.resolve("t"))));
    refused("evidence.tar", tar, "--file", "looks like a tar or gzip archive");
  }

  @Test
  void anOtlpJsonFile_isNamed() throws Exception {
    Path otlp = dir.resolve("spans.jsonl");
    CliRun export =
        CliRun.of(
            "export",
            "--otlp-json",
            otlp.toString(),
            "--file",
            Fixtures.path(Fixtures.CLOUD_INIT_POOL).toString());
    assertThat(export.exit()).isZero();
    refused("otlp.json", Files.readAllBytes(otlp), "--file", "looks like OTLP JSON");
  }

  @Test
  void aHostExportGivenAsAPool_pointsToHostXml_inEitherForm() throws Exception {
    String item =
        "<INSTANCE CLASSNAME=\"Msvm_KvpExchangeDataItem\"><PROPERTY NAME=\"Name\" TYPE=\"string\">"
            + "<VALUE>k</VALUE></PROPERTY></INSTANCE>";
    refused("export.xml", (item + "\n").getBytes(UTF_8), "--file", "use --host-xml");
    ByteArrayOutputStream utf16 = new ByteArrayOutputStream();
    utf16.write(0xFF);
    utf16.write(0xFE);
    utf16.writeBytes(("[\"" + item.replace("\"", "\\\"") + "\"]").getBytes(UTF_16LE));
    refused("export.json", utf16.toByteArray(), "--file", "use --host-xml");
  }

  @Test
  void aBinaryPoolGivenAsAHostExport_pointsToFile() throws Exception {
    refused("pool.kvp", Fixtures.bytes(Fixtures.CLOUD_INIT_POOL), "--host-xml", "use --file");
  }

  @Test
  void aLogFile_isText() throws Exception {
    refused("syslog", "Nov 22 04:47:46 vm kvprov[1]: hello\n".getBytes(UTF_8), "--file", "text");
    refused(
        "syslog2",
        "Nov 22 04:47:46 vm kvprov[1]: hello\n".getBytes(UTF_8),
        "--host-xml",
        "not a host-side export");
  }

  @Test
  void anEmptyPool_saysItHasNoRecords() throws Exception {
    Path empty = Files.createFile(dir.resolve(".kvp_pool_1"));
    for (List<String> command : COMMANDS) {
      if (command.get(0).equals("watch") || command.get(0).equals("get")) {
        continue;
      }
      CliRun run = CliRun.of(args(command, "--file", empty));

      assertThat(run.err()).as("%s", command).contains(empty + ": no records");
      assertThat(run.exit()).as("%s", command).isIn(0, 1);
    }
  }

  @Test
  void aPoolWhoseFirstRecordIsDamaged_isStillRead() throws Exception {
    byte[] pool = Fixtures.bytes(Fixtures.CLOUD_INIT_POOL);
    for (int i = 0; i < 2560; i++) {
      pool[i] = (byte) 0xFF; // the whole first record
    }
    Path file = dir.resolve("damaged.kvp");
    Files.write(file, pool);

    CliRun run = CliRun.of("list", "--json", "--file", file.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.jsonLines()).hasSizeGreaterThan(5);
  }
}
