package dev.kvprov.inspect.cli;

import static dev.kvprov.kvp.RecordCodec.KEY_SIZE;
import static dev.kvprov.kvp.RecordCodec.RECORD_SIZE;
import static dev.kvprov.kvp.RecordCodec.VALUE_SIZE;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.text.Text;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.RecordCodec;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kvp dump} copies records out as bytes: what it prints is what the text of each record
 * shows ({@link Text#printable}), to a test's writer and to a real stdout alike.
 */
class DumpBytesTest {
  @TempDir static Path dir;
  static Path pool;
  static String expected;

  private static byte[] record(byte[] key, byte[] value) {
    byte[] r = new byte[RECORD_SIZE];
    System.arraycopy(key, 0, r, 0, key.length);
    System.arraycopy(value, 0, r, KEY_SIZE, value.length);
    return r;
  }

  @BeforeAll
  static void aPoolOfEveryKindOfText() throws Exception {
    byte[] fullKey = new byte[KEY_SIZE];
    Arrays.fill(fullKey, (byte) 'k');
    byte[] controls = new byte[VALUE_SIZE];
    for (int i = 0; i < controls.length; i++) {
      controls[i] = (byte) (i % 2 == 0 ? 0x1b : 0x7f); // escaped, each byte four times as long
    }
    byte[][] records = {
      record("plain".getBytes(UTF_8), "a value".getBytes(UTF_8)),
      record("tabs".getBytes(UTF_8), "a\tb\nc\rd\u0001e".getBytes(UTF_8)),
      record(
          "caf\u00e9".getBytes(UTF_8),
          "\u00e9t\u00e9 \u0085 \u2028 \ud83d\ude00\n".getBytes(UTF_8)),
      record(new byte[] {'b', (byte) 0xff, 'd'}, new byte[] {'x', (byte) 0xc3, '\n'}),
      record(fullKey, controls),
      record(new byte[0], "no key".getBytes(UTF_8)),
    };
    // Over a megabyte of output: the buffer is written out many times, between records and
    // with multi-byte characters on either side of where it is cut.
    int copies = 120;
    byte[] bytes = new byte[records.length * copies * RECORD_SIZE + 100];
    for (int c = 0; c < copies; c++) {
      for (int r = 0; r < records.length; r++) {
        System.arraycopy(records[r], 0, bytes, (c * records.length + r) * RECORD_SIZE, RECORD_SIZE);
      }
    }
    pool = dir.resolve("pool.kvp");
    Files.write(pool, bytes);
    StringBuilder b = new StringBuilder();
    for (PoolEntry e : RecordCodec.decode(bytes).entries()) {
      b.append(Text.printable(e.key())).append('=').append(Text.printable(e.value())).append('\n');
    }
    expected = b.toString();
  }

  @Test
  void inProcess_printsEachRecordAsItsTextShowsIt() {
    CliRun run = CliRun.of("dump", "--file", pool.toString());

    assertThat(run.exit()).isEqualTo(ExitCode.FOUND.code);
    assertThat(run.out()).isEqualTo(expected);
    assertThat(run.err()).contains("not valid UTF-8", "has no NUL", "key is empty");
  }

  @Test
  void onARealStdout_printsTheSameBytes() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    Process kvp =
        new ProcessBuilder(
                java,
                "-cp",
                System.getProperty("java.class.path"),
                KvpCommand.class.getName(),
                "dump",
                "--file",
                pool.toString())
            .redirectError(ProcessBuilder.Redirect.DISCARD)
            .start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    kvp.getInputStream().transferTo(out);
    assertThat(kvp.waitFor(60, TimeUnit.SECONDS)).isTrue();

    assertThat(kvp.exitValue()).isEqualTo(ExitCode.FOUND.code);
    assertThat(out.toByteArray()).isEqualTo(expected.getBytes(UTF_8));
  }
}
