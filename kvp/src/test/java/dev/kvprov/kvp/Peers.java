package dev.kvprov.kvp;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.fixtures.HostTools;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Real processes that share a pool with the code under test: our JVM writers and foreign ones. */
final class Peers {
  static final String PYTHON = "/usr/bin/python3";

  private Peers() {}

  /** A JVM running {@code main} with this test's class path. */
  static Peer jvm(Class<?> main, List<String> jvmOptions, String... args) throws IOException {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(main.getName());
    command.addAll(List.of(args));
    return start(command);
  }

  /** {@code pool_peer.py} with Debian's Python. */
  static Peer python(String... args) throws IOException {
    HostTools.assumeInstalled("python3", "python3");
    List<String> command = new ArrayList<>();
    command.add(PYTHON);
    command.add(TestPaths.resource("pool_peer.py").toString());
    command.addAll(List.of(args));
    return start(command);
  }

  static Peer start(List<String> command) throws IOException {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.redirectError(ProcessBuilder.Redirect.PIPE);
    return new Peer(
        builder.start(), String.join(" ", command.subList(0, Math.min(3, command.size()))));
  }

  /** A started process, its stdout read line by line. */
  static final class Peer implements AutoCloseable {
    final Process process;
    private final String name;
    private final BufferedReader out;
    private final StringBuilder err = new StringBuilder();
    private final Thread errReader;

    Peer(Process process, String name) {
      this.process = process;
      this.name = name;
      this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), UTF_8));
      this.errReader =
          new Thread(
              () -> {
                try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getErrorStream(), UTF_8))) {
                  for (String line; (line = r.readLine()) != null; ) {
                    synchronized (err) {
                      err.append(line).append('\n');
                    }
                  }
                } catch (IOException ignored) {
                  // The process died; what it printed so far is kept.
                }
              });
      errReader.setDaemon(true);
      errReader.start();
    }

    /** The next line of stdout, or null at its end. */
    String readLine() {
      try {
        return out.readLine();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** Reads stdout until a line equal to {@code expected}; fails on end of output. */
    void expectLine(String expected) {
      for (String line; (line = readLine()) != null; ) {
        if (line.equals(expected)) {
          return;
        }
      }
      throw new AssertionError(
          name + " ended before printing '" + expected + "'; stderr:\n" + stderr());
    }

    void send(String line) throws IOException {
      Writer in = new java.io.OutputStreamWriter(process.getOutputStream(), UTF_8);
      in.write(line + "\n");
      in.flush();
    }

    /** Waits for exit and fails unless the exit code is 0. */
    void awaitSuccess(long seconds) throws InterruptedException {
      if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        throw new AssertionError(
            name + " still running after " + seconds + " s; stderr:\n" + stderr());
      }
      if (process.exitValue() != 0) {
        throw new AssertionError(
            name + " exited " + process.exitValue() + "; stderr:\n" + stderr());
      }
    }

    String stderr() {
      try {
        errReader.join(2000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      synchronized (err) {
        return err.toString();
      }
    }

    @Override
    public void close() {
      process.destroyForcibly();
    }
  }
}
