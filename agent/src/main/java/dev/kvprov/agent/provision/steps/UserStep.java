package dev.kvprov.agent.provision.steps;

import dev.kvprov.agent.os.AccountRepair;
import dev.kvprov.agent.os.GroupFile;
import dev.kvprov.agent.os.LoginDefs;
import dev.kvprov.agent.os.Names;
import dev.kvprov.agent.os.Passwd;
import dev.kvprov.kvp.BootClock;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The admin user: created with its home and the configured groups the system has, or, when it
 * exists as an ordinary user, given the groups it lacks. A system account is never taken over.
 */
final class UserStep implements Step.Action {
  private final Machine machine;
  private final String user;
  private final List<String> groups;

  UserStep(Machine machine, Target target) {
    this.machine = machine;
    this.user = target.user();
    this.groups = target.groups();
  }

  @Override
  public void run(Span span) throws ProvisioningException, IOException, InterruptedException {
    span.setAttribute("user", String.valueOf(user));
    Optional<String> problem = Names.userProblem(user);
    if (problem.isPresent()) {
      throw machine.failure(problem.get());
    }
    // shadow-utils with --prefix follows the image's links as this machine sees them.
    for (String file : List.of("/etc/passwd", "/etc/shadow", "/etc/group", "/etc/gshadow")) {
      machine.root.requireNoWayOut(file);
    }
    machine.root.requireNoWayOut("/home/" + user);
    // A crash in an earlier run (useradd killed between its files) must not fail this one.
    for (String repair : AccountRepair.repair(machine.root, user, bootTime())) {
      span.addEvent(repair);
    }
    GroupFile groupFile = GroupFile.read(machine.root);
    List<String> present = groupFile.existing(groups);
    span.setAttribute(AttributeKey.stringArrayKey("groups"), present);
    Optional<Passwd> existing = Passwd.lookup(machine.root, user);
    List<String> argv = new ArrayList<>();
    if (existing.isEmpty()) {
      machine.refuseUsr(machine.root.resolve("/home/" + user));
      argv.add("useradd");
      argv.addAll(machine.root.prefixArguments());
      argv.addAll(List.of("-m", "-d", "/home/" + user));
      if (Files.isExecutable(machine.root.resolve("/bin/bash"))) {
        argv.addAll(List.of("-s", "/bin/bash"));
      }
      if (!present.isEmpty()) {
        argv.addAll(List.of("-G", String.join(",", present)));
      }
      argv.add(user);
      span.setAttribute("created", true);
      machine.run(argv);
      return;
    }
    if (existing.get().uid() < LoginDefs.uidMin(machine.root)) {
      throw machine.failure(
          "user name '"
              + user
              + "' is an existing system account (uid "
              + existing.get().uid()
              + ")");
    }
    span.setAttribute("created", false);
    Path home = machine.root.resolve(existing.get().home());
    if (!Files.isDirectory(home)) {
      machine.refuseUsr(home); // before anything changes
    }
    List<String> missing = present.stream().filter(g -> !groupFile.isMember(user, g)).toList();
    if (!missing.isEmpty()) {
      argv.add("usermod");
      argv.addAll(machine.root.prefixArguments());
      argv.addAll(List.of("-a", "-G", String.join(",", missing), user));
      machine.run(argv);
    }
    if (!Files.isDirectory(home)) {
      Files.createDirectories(home);
      Files.setPosixFilePermissions(home, PosixFilePermissions.fromString("rwxr-x---"));
      Files.setAttribute(home, "unix:uid", existing.get().uid());
      Files.setAttribute(home, "unix:gid", existing.get().gid());
    }
  }

  /** When this machine booted; the epoch when that cannot be read (then only dead owners count). */
  private static Instant bootTime() {
    try {
      return BootClock.read(Path.of("/")).bootTime();
    } catch (IOException e) {
      return Instant.EPOCH;
    }
  }
}
