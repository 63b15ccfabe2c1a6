package dev.kvprov.agent.ovf;

/** Where {@code ovf-env.xml} comes from: the platform's CD-ROM, or a directory. */
public interface ProvisioningMedia {
  /** Finds, reads and parses {@code ovf-env.xml}, leaving nothing mounted behind. */
  OvfEnvironment read() throws OvfException, InterruptedException;
}
