package dev.kvprov.agent.ovf;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** {@code ovf-env.xml} in a plain directory: for tests, {@code --root} and the demo. */
public final class DirectoryMedia implements ProvisioningMedia {
  private final Path directory;

  public DirectoryMedia(Path directory) {
    this.directory = directory;
  }

  @Override
  public OvfEnvironment read() throws OvfException {
    return readFrom(directory);
  }

  static OvfEnvironment readFrom(Path directory) throws OvfException {
    Path file = directory.resolve("ovf-env.xml");
    try (InputStream in = Files.newInputStream(file)) {
      return OvfParser.parse(in);
    } catch (NoSuchFileException e) {
      throw new OvfException("no ovf-env.xml in " + directory, e);
    } catch (IOException e) {
      throw new OvfException("cannot read " + file + ": " + e.getMessage(), e);
    }
  }
}
