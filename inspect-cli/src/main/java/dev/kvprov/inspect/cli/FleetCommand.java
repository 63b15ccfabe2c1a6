package dev.kvprov.inspect.cli;

import dev.kvprov.inspect.pool.VmInput;
import dev.kvprov.inspect.render.FleetJson;
import dev.kvprov.inspect.render.FleetText;
import dev.kvprov.inspect.render.Style;
import dev.kvprov.inspect.spans.Fleet;
import dev.kvprov.inspect.spans.FleetReading;
import dev.kvprov.inspect.spans.VmSummary;
import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code kvp fleet}: many VMs at once, from the host side. */
@Command(
    name = "fleet",
    mixinStandardHelpOptions = true,
    description = {
      "Many VMs at once, from the host: a line per VM, then the fleet.",
      "",
      "A VM's line: its verdict, boot time, slowest step and reason. Then each step's",
      "p50, p95 and max across the VMs, and the failures grouped by reason.",
      "",
      "Each file is one VM: a host-side export (as the PowerShell in kvp's docs makes",
      "it), a pool file, or a kvp bundle (.tar.gz: its pool 1). A directory stands for",
      "its files, by name. VMs are read a few at a time and printed as they are read:",
      "memory stays flat however many there are."
    },
    footer = {
      "",
      "",
      "Examples:",
      "  kvp fleet exports/                      every VM in the directory",
      "  kvp fleet exports/ | grep -v ' ok '     the VMs that did not provision",
      "  kvp fleet vm-a.xml vm-b.kvp t.tar.gz    an export, a pool and a bundle",
      "  kvp fleet exports/ --json | jq '.failures[] | [.vms, .reason]'"
    })
final class FleetCommand implements Callable<Integer> {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Parameters(
      arity = "1..*",
      paramLabel = "DIR|FILE",
      description = "A directory of exports, pools or bundles (one per VM), or such files.")
  List<Path> paths;

  @Option(
      names = "--json",
      description =
          "One JSON object: {\"vms\": [...], \"count\", \"verdicts\", \"boot\","
              + " \"steps\", \"failures\", ...}, the VMs written as they are read.")
  boolean json;

  @Option(names = "--wide", description = "Lines never cut, at a terminal too.")
  boolean wide;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    List<VmInput> inputs;
    try {
      inputs = VmInput.of(paths);
    } catch (IOException e) {
      err.println("kvp fleet: " + IoErrors.describe(e));
      return ExitCode.IO.code;
    }
    if (inputs.isEmpty()) {
      err.println("kvp fleet: no files to read in " + paths.get(0));
    }
    Fleet fleet = new Fleet();
    Consumer<VmSummary> show;
    Runnable end;
    if (json) {
      FleetJson view = new FleetJson(out);
      view.header();
      show = view::vm;
      end = () -> view.summary(fleet);
    } else {
      FleetText view = new FleetText(out, Style.columns(wide));
      view.header();
      show = view::vm;
      end = () -> view.summary(fleet);
    }
    FleetReading.each(
        inputs,
        vm -> {
          show.accept(vm);
          fleet.add(vm);
        });
    end.run();
    return (fleet.allOk() ? ExitCode.OK : ExitCode.FOUND).code;
  }
}
