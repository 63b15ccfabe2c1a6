package dev.kvprov.inspect.bundle;

import java.io.PrintWriter;
import java.util.List;

/**
 * Runs {@code kvp}'s own commands on the bundled input, for the bundle's {@code kvp/} files: the
 * commands are the layer above, so the bundle is handed a way to run them.
 */
public interface KvpCommands {
  /** The exit status of a command that did what it was asked. */
  int SUCCEEDED = 0;

  /** Runs {@code kvp ARGS}, its output to {@code out} and {@code err}; its exit status. */
  int run(List<String> args, PrintWriter out, PrintWriter err);
}
