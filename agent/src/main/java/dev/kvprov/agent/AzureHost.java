package dev.kvprov.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Whether this process may provision the running system: as root, on Azure. The same asset-tag
 * check as kvprov.service's {@code ExecCondition}, so a hand-run {@code kvprov provision} on a
 * laptop does not spend twenty minutes reporting to a wireserver that is not there.
 */
final class AzureHost {
  /** The chassis asset tag every Azure VM carries (Hyper-V elsewhere has another). */
  static final String AZURE_ASSET_TAG = "7783-7084-3265-9085-8269-3286-77";

  private AzureHost() {}

  /** Why the running system under {@code sys} and {@code proc} must not be provisioned, if so. */
  static Optional<String> refusal(Path sys, Path proc) {
    if (!isRoot(proc)) {
      return Optional.of(
          "provisioning the running system needs root; use --root DIR to provision an image");
    }
    return notAzure(sys).map(why -> why + "; use --force to provision it anyway");
  }

  /** Why this machine (its {@code sys}) is no Azure VM, if it is none. */
  static Optional<String> notAzure(Path sys) {
    String tag;
    try {
      tag = Files.readString(sys.resolve("class/dmi/id/chassis_asset_tag")).strip();
    } catch (IOException e) {
      tag = "";
    }
    if (tag.equals(AZURE_ASSET_TAG)) {
      return Optional.empty();
    }
    return Optional.of(
        "this machine is not an Azure VM (its chassis asset tag is "
            + (tag.isEmpty() ? "missing" : "'" + tag + "'")
            + ")");
  }

  private static boolean isRoot(Path proc) {
    try {
      for (String line : Files.readAllLines(proc.resolve("self/status"))) {
        if (line.startsWith("Uid:")) {
          // real, effective, saved, filesystem: the effective one decides what we may write
          String[] ids = line.substring(4).strip().split("\\s+");
          return ids.length > 1 && ids[1].equals("0");
        }
      }
    } catch (IOException e) {
      return false;
    }
    return false;
  }
}
