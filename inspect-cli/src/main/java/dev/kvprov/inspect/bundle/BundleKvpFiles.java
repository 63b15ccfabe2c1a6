package dev.kvprov.inspect.bundle;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.kvp.IoErrors;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The bundle's {@code kvp/} files: what {@code kvp}'s own commands say of the bundled input, run in
 * this JVM as a user would run them, so the ticket's reader sees what the customer would have seen
 * without asking for it. Each output is streamed through the work directory and cut at {@link
 * BundleFiles#MAX_PART_BYTES}.
 */
final class BundleKvpFiles {
  /** The commands run, in the order their files go in. */
  private static final List<List<String>> COMMANDS =
      List.of(
          List.of("report"),
          List.of("tree"),
          List.of("list", "--wide"),
          List.of("doctor"),
          List.of("timeline"));

  private final BundleView view;
  private final KvpCommands kvp;
  private final BundleUsers users;
  private final BundleFiles files;

  BundleKvpFiles(BundleView view, KvpCommands kvp, BundleUsers users, BundleFiles files) {
    this.view = view;
    this.kvp = kvp;
    this.users = users;
    this.files = files;
  }

  /** Every command's file, then the timeline page; or one line why none was made. */
  void add() {
    if (view.tooLarge()) {
      files
          .manifest()
          .add(
              "not made: kvp/ (the input is more than "
                  + (BundleImageFiles.MAX_FILE_BYTES >> 20)
                  + " MiB: more than a pool holds)");
      return;
    }
    for (List<String> command : COMMANDS) {
      run(command, String.join("-", command).replace("--", "") + ".txt");
    }
    page();
  }

  /** One command on the same input, its output, stderr and exit status as a file of the bundle. */
  private void run(List<String> command, String name) {
    List<String> args = new ArrayList<>(command);
    args.addAll(view.options());
    Path spool = files.work("part");
    Path err = files.work("stderr");
    try {
      int exit;
      boolean cut;
      try (OutputStream file = Files.newOutputStream(spool);
          OutputStream errFile = Files.newOutputStream(err)) {
        PartWriter text = new PartWriter(file, this::plain, BundleFiles.MAX_PART_BYTES);
        text.write("$ kvp " + plain(String.join(" ", args)) + "\n");
        PrintWriter stdout = new PrintWriter(text, true);
        PrintWriter stderr =
            new PrintWriter(new PartWriter(errFile, this::plain, BundleFiles.MAX_PART_BYTES), true);
        exit = kvp.run(args, stdout, stderr);
        stdout.close();
        stderr.close();
        cut = text.cut();
        if (Files.size(err) > 0) {
          file.write("--- stderr\n".getBytes(UTF_8));
          Files.copy(err, file);
        }
        file.write(("--- exit status " + exit + "\n").getBytes(UTF_8));
      }
      files.add("kvp/" + name, spool, "kvp " + String.join(" ", command) + (cut ? ", cut" : ""));
    } catch (IOException e) {
      files.manifest().add("not made: kvp/" + name + ": " + IoErrors.reason(e));
    }
  }

  private void page() {
    try {
      Path page = files.work("timeline.html");
      List<String> args = new ArrayList<>(List.of("timeline", "--html", page.toString()));
      args.addAll(view.options());
      PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
      if (kvp.run(args, nowhere, nowhere) == KvpCommands.SUCCEEDED) {
        Path spool = files.work("part");
        try (Reader in = Files.newBufferedReader(page, UTF_8);
            OutputStream file = Files.newOutputStream(spool);
            PartWriter text = new PartWriter(file, this::plain, BundleFiles.MAX_PART_BYTES)) {
          in.transferTo(text);
        }
        files.add("kvp/timeline.html", spool, "timeline page");
      } else {
        files.manifest().add("not made: the timeline page (kvp timeline --html failed)");
      }
    } catch (IOException e) {
      files.manifest().add("not made: the timeline page: " + IoErrors.reason(e));
    }
  }

  /**
   * A line as a file of the bundle shows it: no terminal colours (they mean nothing in a file), the
   * rescued disk's paths for the view's, and user names replaced when asked.
   */
  private String plain(String line) {
    return users.redact(view.shown(line.replaceAll("\u001b\\[[0-9;]*m", "")));
  }
}
