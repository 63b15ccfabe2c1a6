package dev.kvprov.agent.sim;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How the simulated Azure behaves: a healthy platform, or one of the failures agents must ride out.
 */
public enum Scenario {
  /** Everything answers at once. */
  OK("everything answers at once"),
  /** IMDS answers after a delay (seconds, default 3). */
  SLOW_IMDS("IMDS answers after a few seconds"),
  /** IMDS fails N times (default 3: 500, 503, 429) before it answers. */
  FLAKY_IMDS("IMDS fails a few times, then answers"),
  /** IMDS always answers 503. */
  IMDS_DOWN("IMDS always answers 503 (the media alone then provision the VM)"),
  /** IMDS down and no provisioning media: nothing says what the VM is to be (demo: no media). */
  IMDS_DOWN_NO_MEDIA("IMDS always answers 503, and there are no provisioning media"),
  /** IMDS answers 200 with a body that is not JSON, N times (default 2), then a good one. */
  IMDS_MALFORMED("IMDS sends a broken body a few times, then a good one"),
  /** The health endpoints fail N times (default 3) before they accept a report. */
  WIRESERVER_FLAKY("the wireserver fails a few times, then accepts reports"),
  /** The health endpoints always answer 503. */
  WIRESERVER_DOWN("the wireserver always answers 503"),
  /** IMDS answers 429 with Retry-After (default 1 s), N times (default 2), then answers. */
  RETRY_AFTER("IMDS asks to retry later, a few times"),
  /** IMDS sends its headers and a few bytes, then nothing, N times (default 1), then answers. */
  IMDS_STALLS("IMDS sends its headers, then stalls"),
  /** IMDS sends its answer a byte every 100 ms, N times (default 1), then answers at once. */
  IMDS_TRICKLES("IMDS sends its answer a byte at a time"),
  /** The health endpoints send their headers, then nothing, N times (default 1). */
  WIRESERVER_STALLS("the wireserver sends its headers, then stalls"),
  /** The health endpoints always answer 403, as a machine that is not on Azure gets. */
  WIRESERVER_FORBIDS("the wireserver refuses every report (403), as off Azure"),
  /**
   * IMDS gives no SSH keys; the media names one by its certificate's fingerprint alone, which the
   * goal state's certificates deliver (the demo adds that key to its media).
   */
  CERTIFICATE_KEY("the SSH key comes as a certificate from the wireserver's goal state"),
  /**
   * IMDS sends its keys as the Azure portal makes them: the sample's RSA key wrapped with CR LF
   * every 64 characters (and one at the end), and the goal state's certificate in PEM.
   */
  PORTAL_KEYS("IMDS sends one key wrapped with CR LF, one as an x509 certificate in PEM"),
  /**
   * A pre-provisioned VM of the Running kind: IMDS says {@code ppsType: Running} and answers the
   * reprovisioning data (the customer's ovf-env.xml) after N polls (default 2); the demo's media
   * say {@code PreprovisionedVm}.
   */
  PPS_RUNNING("a pre-provisioned VM waits in the pool, then is handed to its customer"),
  /**
   * A pre-provisioned VM of the Savable kind: IMDS says {@code ppsType: Savable}; once the pool
   * heard Ready, the platform swaps the VM's NIC (in the guest's {@code /sys/class/net}, when the
   * simulator has one) and only then answers the reprovisioning data.
   */
  PPS_SAVABLE("a pre-provisioned VM is saved in the pool, resumed with a new NIC"),
  /**
   * A VM without network: neither IMDS nor the wireserver accepts a connection (refused), so the
   * failure reaches the host through KVP alone (the demo's root shows its link down).
   */
  NETWORK_DOWN("no network: IMDS and the wireserver refuse every connection"),
  /**
   * Everything answers at once, but the image's configuration has a mistake: the demo writes a
   * drop-in with a value of the wrong type (the simulator alone behaves as {@link #OK}).
   */
  CONFIG_ERROR("the image's configuration has a mistake (demo only: a drop-in of the wrong type)"),
  /**
   * Everything answers at once, but what the platform asks for cannot be done (demo: {@code --bad}
   * chooses the field, refused before any change; the simulator alone behaves as {@link #OK}).
   */
  BAD_MEDIA("a field cannot be carried out (demo: --bad chooses which)"),
  /**
   * Everything answers at once, and the media ask for the Guest Proxy Agent (demo: a stand-in
   * {@code azure-proxy-agent} in the root answers ready; the simulator alone behaves as {@link
   * #OK}).
   */
  GPA("the media ask for the Guest Proxy Agent (demo: a stand-in answers ready)"),
  /**
   * Everything answers at once; the demo's configuration sets {@code kvp.formats = ["kvprov",
   * "diag"]}, so the pool holds each record in azure-init's DIAG grammar too (the simulator alone
   * behaves as {@link #OK}).
   */
  DIAG_RECORDS("records in azure-init's DIAG grammar too (demo: kvp.formats)");

  private final String description;

  Scenario(String description) {
    this.description = description;
  }

  public String description() {
    return description;
  }

  /** The name as typed on the command line: {@code flaky-imds}. */
  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Every scenario's command-line name, for the help of the commands that take one. */
  public static final class Names implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return Arrays.stream(values()).map(Scenario::cliName).iterator();
    }
  }

  /** Parses {@code flaky-imds} (or {@code FLAKY_IMDS}). */
  public static Scenario parse(String name) {
    for (Scenario s : values()) {
      if (s.cliName().equalsIgnoreCase(name) || s.name().equalsIgnoreCase(name)) {
        return s;
      }
    }
    throw new IllegalArgumentException(
        "unknown scenario '"
            + name
            + "'; known: "
            + Arrays.stream(values()).map(Scenario::cliName).collect(Collectors.joining(", ")));
  }
}
