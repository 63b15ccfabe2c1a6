package dev.kvprov.agent;

import dev.kvprov.agent.config.AgentConfig;
import dev.kvprov.agent.os.CommandRunner;
import dev.kvprov.agent.ovf.DeviceMedia;
import dev.kvprov.agent.ovf.DirectoryMedia;
import dev.kvprov.agent.ovf.ProvisioningMedia;
import io.opentelemetry.api.trace.Tracer;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where ovf-env.xml comes from: the configured CD-ROM devices, or {@code --media-dir}. */
final class MediaOptions {
  @Option(
      names = "--media-dir",
      paramLabel = "DIR",
      description = "Read ovf-env.xml from DIR instead of the provisioning CD-ROM.")
  Path mediaDir;

  ProvisioningMedia media(AgentConfig config, Path root, CommandRunner runner, Tracer tracer) {
    return mediaDir != null
        ? new DirectoryMedia(mediaDir, tracer)
        : new DeviceMedia(config.mediaDevices(), root, root.resolve("run/kvprov"), runner, tracer);
  }
}
