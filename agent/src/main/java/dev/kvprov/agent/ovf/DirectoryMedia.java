package dev.kvprov.agent.ovf;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/** {@code ovf-env.xml} in a plain directory: for tests, {@code --root} and the demo. */
public final class DirectoryMedia implements ProvisioningMedia {
  private final Path directory;
  private final Tracer tracer;

  public DirectoryMedia(Path directory, Tracer tracer) {
    this.directory = directory;
    this.tracer = tracer;
  }

  @Override
  public OvfEnvironment read() throws OvfException {
    Span span =
        tracer
            .spanBuilder("media.read_ovf")
            .setAttribute("media.directory", directory.toString())
            .startSpan();
    try (Scope ignored = span.makeCurrent()) {
      return readFrom(directory);
    } catch (OvfException e) {
      span.setStatus(StatusCode.ERROR, e.getMessage());
      throw e;
    } finally {
      span.end();
    }
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
