package dev.kvprov.agent;

/** {@code kvprov}: the entry point. */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    StartupPhases.mark("main");
    Warmup.start(args);
    int exit = run(args);
    StartupPhases.mark("end");
    StartupPhases.write(); // measuring never changes how the run ends: it says why in one line
    System.exit(exit);
  }

  /** A plain {@code provision} line without picocli's start-up cost ({@link ProvisionLine}). */
  static int run(String[] args) {
    return ProvisionLine.parse(args)
        .map(ProvisionLine::execute)
        .orElseGet(() -> KvprovCommand.execute(args));
  }
}
