package dev.kvprov.agent.net;

import dev.kvprov.agent.os.SystemRoot;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The newest DHCP lease any of the usual clients left: systemd-networkd's ({@code
 * SERVER_ADDRESS=}), NetworkManager's internal client's (the same) and dhclient's ({@code option
 * dhcp-server-identifier …;}). Its age is its file's: a client rewrites it with every lease.
 */
final class LeaseFiles {
  /** Where each client keeps its leases, and which of the files there are leases. */
  private record Place(String dir, Pattern names) {}

  private static final List<Place> PLACES =
      List.of(
          new Place("/run/systemd/netif/leases", Pattern.compile("[0-9]+")),
          new Place("/var/lib/NetworkManager", Pattern.compile(".+\\.lease")),
          new Place("/var/lib/dhcp", Pattern.compile(".+\\.leases?")),
          new Place("/var/lib/dhclient", Pattern.compile(".+\\.leases?")));

  /** Leases looked at in one directory, at most: a lease directory holds one per link. */
  static final int MAX_FILES = 64;

  /** Entries of one directory looked at, at most, to find them. */
  private static final int MAX_LISTED = 4096;

  private static final Pattern NETWORKD = Pattern.compile("(?m)^SERVER_ADDRESS=([0-9a-fA-F.:]+)");
  private static final Pattern DHCLIENT =
      Pattern.compile("option\\s+dhcp-server-identifier\\s+([0-9.]+)\\s*;");

  private LeaseFiles() {}

  static Optional<NetworkSnapshot.Lease> newest(SystemRoot root, Instant now) {
    Path newest = null;
    String shown = null;
    FileTime newestTime = null;
    for (Place place : PLACES) {
      Optional<Path> dir = BoundedText.resolve(root, place.dir()).filter(Files::isDirectory);
      if (dir.isEmpty()) {
        continue;
      }
      // the leases among the files (NetworkManager keeps its state, timestamps… beside them)
      try (Stream<Path> entries = Files.list(dir.get())) {
        List<Path> leases =
            entries
                .limit(MAX_LISTED)
                .filter(f -> place.names().matcher(f.getFileName().toString()).matches())
                .limit(MAX_FILES)
                .toList();
        for (Path file : leases) {
          String name = file.getFileName().toString();
          if (!Files.isRegularFile(file)) {
            continue;
          }
          FileTime time = Files.getLastModifiedTime(file);
          if (newestTime == null || time.compareTo(newestTime) > 0) {
            newest = file;
            newestTime = time;
            shown = place.dir() + "/" + BoundedText.cap(name);
          }
        }
      } catch (IOException | UncheckedIOException | SecurityException e) {
        // an unreadable directory has no lease to show
      }
    }
    if (newest == null) {
      return Optional.empty();
    }
    // dhclient appends each lease it gets: the newest is at the end of a file of any length
    Optional<String> server = BoundedText.tail(newest).flatMap(LeaseFiles::server);
    long age = Math.max(0, Duration.between(newestTime.toInstant(), now).toSeconds());
    return Optional.of(new NetworkSnapshot.Lease(shown, server, age));
  }

  /** The DHCP server a lease names: the last one, for dhclient appends each lease it gets. */
  static Optional<String> server(String text) {
    Matcher m = NETWORKD.matcher(text);
    if (m.find()) {
      return Optional.of(BoundedText.cap(m.group(1)));
    }
    Matcher d = DHCLIENT.matcher(text);
    String last = null;
    while (d.find()) {
      last = d.group(1);
    }
    return Optional.ofNullable(last).map(BoundedText::cap);
  }
}
