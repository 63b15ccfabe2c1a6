package dev.kvprov.agent;

/** {@code kvprov}: the entry point. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    StartupPhases.mark("main");
    Warmup.start(args);
    int exit = KvprovCommand.commandLine(args).execute(args);
    StartupPhases.mark("end");
    StartupPhases.write(); // measuring never changes how the run ends: it says why in one line
    System.exit(exit);
  }
}
