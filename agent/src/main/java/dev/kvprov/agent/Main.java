package dev.kvprov.agent;

/** {@code kvprov}: the entry point. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    System.exit(KvprovCommand.commandLine(args).execute(args));
  }
}
