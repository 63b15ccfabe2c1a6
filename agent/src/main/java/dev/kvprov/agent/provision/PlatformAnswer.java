package dev.kvprov.agent.provision;

import dev.kvprov.agent.imds.ImdsClient;
import dev.kvprov.agent.imds.ImdsException;
import dev.kvprov.agent.imds.ImdsInstance;
import dev.kvprov.agent.ovf.OvfEnvironment;
import dev.kvprov.agent.ovf.OvfException;
import dev.kvprov.agent.ovf.ProvisioningMedia;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * What the platform says, read as provisioning reads it: IMDS, completed by the provisioning media;
 * and when IMDS gives no usable answer, the media alone (they carry all the steps need), said as a
 * warning. Only when neither answers does it fail, with IMDS's reason.
 *
 * @param data what the VM is to be
 * @param media the media as read, or null when they are off
 * @param userData IMDS's user data (base64), if any
 * @param source {@code imds}, or {@code ovf} when the media alone answered
 * @param imdsPpsType the pre-provisioning type IMDS names ({@code None} when it did not answer)
 * @param certificateKeys the media's keys given by certificate fingerprint alone, to be fetched
 *     from the goal state (none when IMDS gave keys: its keys win)
 */
public record PlatformAnswer(
    PlatformData data,
    OvfEnvironment media,
    Optional<String> userData,
    String source,
    String imdsPpsType,
    List<OvfEnvironment.SshKey> certificateKeys) {

  /** A pre-provisioned VM's kind, from the media (as the platform writes it) or IMDS. */
  public enum Preprovisioning {
    /** An ordinary VM. */
    NONE,
    /** Booted into a pool, reported Ready, and waiting (running) to be handed to a customer. */
    RUNNING,
    /** Booted into a pool and then saved: kvprov does not support it. */
    SAVABLE
  }

  /** What kind of VM this is, as cloud-init and WALinuxAgent read it. */
  public Preprovisioning preprovisioning() {
    String type = media != null && media.preprovisionedVm() ? media.preprovisionedVmType() : "None";
    if (type.equalsIgnoreCase("Savable") || imdsPpsType.equalsIgnoreCase("Savable")) {
      return Preprovisioning.SAVABLE;
    }
    if (media != null && media.preprovisionedVm() || imdsPpsType.equalsIgnoreCase("Running")) {
      return Preprovisioning.RUNNING; // PreprovisionedVm alone, type unset: the first kind, Running
    }
    return Preprovisioning.NONE;
  }

  /**
   * Whether the platform asks for the Guest Proxy Agent's status to be checked: the media's {@code
   * ProvisionGuestProxyAgent}, where cloud-init reads it too (IMDS documents no such field).
   */
  public boolean guestProxyAgent() {
    return media != null && media.provisionGuestProxyAgent();
  }

  /** Where IMDS's instance comes from: IMDS itself, or what an earlier request of this run got. */
  interface Instances {
    ImdsInstance fetch() throws ImdsException, InterruptedException;
  }

  /**
   * @param media the media to read, or null when they are off
   * @param warn told why IMDS was passed over, when it was
   */
  public static PlatformAnswer read(ImdsClient imds, ProvisioningMedia media, Consumer<String> warn)
      throws ImdsException, OvfException, InterruptedException {
    return read(imds::fetch, media, warn);
  }

  /**
   * The media alone, IMDS never asked ({@code provision --offline}): the answer an image build
   * gives itself.
   */
  static PlatformAnswer offline(ProvisioningMedia media) throws OvfException, InterruptedException {
    OvfEnvironment env = media.read();
    return new PlatformAnswer(
        PlatformData.fromMedia(env),
        env,
        Optional.empty(),
        "ovf",
        "None",
        PlatformData.certificateKeys(null, env));
  }

  static PlatformAnswer read(Instances imds, ProvisioningMedia media, Consumer<String> warn)
      throws ImdsException, OvfException, InterruptedException {
    return read(imds, media, warn, env -> {});
  }

  /** What is done with the media as soon as they are read, before IMDS is asked. */
  interface BeforeImds<E extends Exception> {
    void read(OvfEnvironment media) throws E, InterruptedException;
  }

  /**
   * As above; {@code beforeImds} is given the media first (when they are on and could be read): the
   * Guest Proxy Agent they ask for sits between the VM and IMDS, so it is checked before IMDS is
   * asked, as cloud-init does. When it throws, IMDS is not asked.
   */
  static <E extends Exception> PlatformAnswer read(
      Instances imds, ProvisioningMedia media, Consumer<String> warn, BeforeImds<E> beforeImds)
      throws ImdsException, OvfException, InterruptedException, E {
    OvfEnvironment env = null;
    OvfException mediaFailure = null;
    if (media != null) {
      try {
        env = media.read();
      } catch (OvfException e) {
        mediaFailure = e;
      }
    }
    if (env != null) {
      try {
        beforeImds.read(env);
      } catch (Exception e) {
        env.clearSecrets();
        throw e;
      }
    }
    ImdsInstance instance = null;
    ImdsException imdsFailure = null;
    try {
      instance = imds.fetch();
    } catch (ImdsException e) {
      imdsFailure = e;
    }
    if (mediaFailure != null) {
      if (imdsFailure != null) {
        imdsFailure.addSuppressed(mediaFailure);
        throw imdsFailure; // neither answered: IMDS's failure is the one to report
      }
      throw mediaFailure;
    }
    if (imdsFailure != null) {
      // The media stand in for an IMDS that did not answer, never for one that said no.
      if (env == null || imdsFailure.refused()) {
        if (env != null) {
          env.clearSecrets();
        }
        throw imdsFailure;
      }
      warn.accept(
          "IMDS gave no usable answer ("
              + imdsFailure.getMessage()
              + "): provisioning from the provisioning media alone");
      return new PlatformAnswer(
          PlatformData.fromMedia(env),
          env,
          Optional.empty(),
          "ovf",
          "None",
          PlatformData.certificateKeys(null, env));
    }
    return new PlatformAnswer(
        PlatformData.of(instance, env),
        env,
        Optional.ofNullable(instance.compute().userData()).filter(u -> !u.isBlank()),
        "imds",
        instance.ppsType(),
        PlatformData.certificateKeys(instance, env));
  }
}
