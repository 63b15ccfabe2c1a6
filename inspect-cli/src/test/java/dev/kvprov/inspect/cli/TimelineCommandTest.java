package dev.kvprov.inspect.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvprov.fixtures.Trials;
import dev.kvprov.inspect.CliRun;
import dev.kvprov.inspect.HostilePools;
import dev.kvprov.inspect.KvprovSpanRecords;
import dev.kvprov.inspect.QuietTelemetry;
import dev.kvprov.inspect.pool.InputKind;
import dev.kvprov.inspect.render.TimelinePage;
import dev.kvprov.kvp.BootClock;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolFile;
import dev.kvprov.otel.KvpRecordFormat;
import dev.kvprov.otel.KvpTelemetry;
import dev.kvprov.otel.KvprovAttributes;
import dev.kvprov.otel.KvprovRecord;
import dev.kvprov.otel.ProvisioningReport;
import io.opentelemetry.api.logs.Severity;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NamedNodeMap;
import org.w3c.dom.NodeList;

class TimelineCommandTest {
  /** The boot epoch in the cloud-init fixture's keys: 2026-11-22T04:39:15Z. */
  private static final long FIXTURE_BOOT_EPOCH = 1795322355L;

  private static final String HOSTILE = "<script>alert(1)</script>&\"'\u0001";

  @TempDir Path dir;

  /** "kind name t_s status" per row. */
  private static List<String> rows(JsonNode timeline) {
    List<String> rows = new ArrayList<>();
    timeline
        .path("rows")
        .forEach(
            r ->
                rows.add(
                    r.path("kind").asText()
                        + " "
                        + r.path("name").asText()
                        + " "
                        + r.path("t_s").asDouble()
                        + " "
                        + r.path("status").asText()));
    return rows;
  }

  /** A boot clock read from a fake {@code /proc}: this boot has been up {@code uptime} seconds. */
  private BootClock bootClock(String uptime) throws IOException {
    Path root = dir.resolve("root");
    Files.createDirectories(root.resolve("proc/sys/kernel/random"));
    Files.writeString(root.resolve("proc/stat"), "cpu  1 2 3\nbtime " + FIXTURE_BOOT_EPOCH + "\n");
    Files.writeString(root.resolve("proc/uptime"), uptime + " 1.00\n");
    Files.writeString(
        root.resolve("proc/sys/kernel/random/boot_id"), "0f5e3c0a-1b2c-4d3e-8f90-a1b2c3d4e5f6\n");
    return BootClock.read(root);
  }

  /** Telemetry into {@code pool} only, with the given boot clock; the pool is never cleared. */
  private static KvpTelemetry telemetry(PoolFile pool, BootClock bootClock) {
    return QuietTelemetry.into(pool).bootClock(bootClock).build();
  }

  /**
   * A provisioning run from {@code t0}: a root span, a step with an event, a warning, a failed
   * step, a step that never finishes (killed), and a span named {@code name}.
   */
  private static void provision(KvpTelemetry telemetry, Instant t0, String name) {
    Tracer tracer = telemetry.tracer();
    Span root = tracer.spanBuilder("provision").setStartTimestamp(t0).startSpan();
    try (var scope = root.makeCurrent()) {
      Span imds =
          tracer.spanBuilder("imds.fetch").setStartTimestamp(t0.plusMillis(100)).startSpan();
      imds.addEvent("retrying", t0.plusMillis(150));
      imds.end(t0.plusMillis(300));
      telemetry
          .logger()
          .logRecordBuilder()
          .setTimestamp(t0.plusMillis(350))
          .setSeverity(Severity.WARN)
          .setSeverityText("WARN")
          .setBody("group docker does not exist")
          .emit();
      Span user = tracer.spanBuilder(name).setStartTimestamp(t0.plusMillis(400)).startSpan();
      user.setStatus(StatusCode.ERROR, "useradd exited 9");
      user.end(t0.plusMillis(500));
      tracer.spanBuilder("hangs").setStartTimestamp(t0.plusMillis(600)).startSpan();
    }
    root.end(t0.plusMillis(1000));
  }

  /** Seconds as the timeline computes them: the double nearest the exact value. */
  private static double seconds(Duration d) {
    return BigDecimal.valueOf(d.getSeconds()).add(BigDecimal.valueOf(d.getNano(), 9)).doubleValue();
  }

  @Test
  void cloudInitPool_countsFromTheBootEpochInItsKeys_rowsInOrderWithExactSeconds()
      throws Exception {
    CliRun run =
        CliRun.of("timeline", "--json", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString());
    assertThat(run.exit()).isZero();

    JsonNode timeline = run.json();
    assertThat(timeline.path("boot").toString())
        .isEqualTo(
            "{\"time\":\"2026-11-22T04:39:15Z\",\"source\":\"cloud-init\","
                + "\"origin\":\"2026-11-22T04:39:15Z\"}");
    assertThat(rows(timeline))
        .containsExactly(
            "start azure-ds/crawl_metadata 511.422511 ok",
            "diagnostic diagnostic message 511.422548 null",
            "end azure-ds/crawl_metadata 511.422585 ok",
            "start azure-ds/failing_step 511.422622 error",
            "end azure-ds/failing_step 511.422659 error",
            "diagnostic diagnostic message 511.422696 null",
            "compressed dmesg 511.422733 null");
    JsonNode failed = timeline.path("rows").get(4);
    assertThat(failed.path("message").asText()).isEqualTo("will raise");
    assertThat(failed.path("duration_s").asDouble()).isEqualTo(0.000037);
    assertThat(failed.path("time").asText()).isEqualTo("2026-11-22T04:47:46.422659Z");
    assertThat(timeline.path("undated").asInt()).isZero();

    run = CliRun.of("timeline", "--file", KvpCommandTest.CLOUD_INIT_POOL.toString());
    assertThat(run.exit()).isZero();
    List<String> lines = run.out().lines().toList();
    assertThat(lines.get(0))
        .isEqualTo("boot 2026-11-22T04:39:15Z from cloud-init keys (boot epoch, whole seconds)");
    assertThat(lines.get(1))
        .isEqualTo("  +511.423s  cloud-init  start       azure-ds/crawl_metadata");
    assertThat(lines.get(5))
        .isEqualTo("  +511.423s  cloud-init  end         azure-ds/failing_step  0.000s  FAILED");
    assertThat(lines.get(6)).isEqualTo(" ".repeat(37) + "will raise");
    // a pipe gets every row whole (a terminal wraps them: TerminalWidthTest)
    assertThat(lines.get(8)).endsWith("dmesg: compressed, 2608 chars: kvp decode shows it");
  }

  @Test
  void ourOwnPool_countsFromItsMonotonicBootField_mergingSpansEventsAndLogs() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = telemetry(pool, bootClock("30.50"))) {
      provision(telemetry, Instant.now(), "user.create");
    }
    // What the timeline must say, from the records themselves: each row at its record's Boot,
    // the boot at the earliest wall time less Boot.
    Map<String, Duration> boot = new HashMap<>();
    Instant bootTime = Instant.MAX;
    for (var decoded : KvpRecordFormat.decode(pool.read().records()).records()) {
      KvprovRecord r = decoded.record();
      String kind = r.kind().name().toLowerCase(java.util.Locale.ROOT);
      String name = r.kind() == KvprovRecord.Kind.LOG ? "log" : r.name().orElseThrow();
      boot.put(kind + " " + name, r.sinceBoot().orElseThrow());
      r.endSinceBoot().ifPresent(end -> boot.put("end-boot " + name, end));
      boolean span = r.kind() == KvprovRecord.Kind.START || r.kind() == KvprovRecord.Kind.END;
      Instant wall = (span ? r.start() : r.time()).orElseThrow();
      if (wall.minus(r.sinceBoot().orElseThrow()).isBefore(bootTime)) {
        bootTime = wall.minus(r.sinceBoot().orElseThrow());
      }
    }

    CliRun run = CliRun.of("timeline", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();

    JsonNode timeline = run.json();
    assertThat(timeline.path("boot").path("source").asText()).isEqualTo("kvprov");
    assertThat(timeline.path("boot").path("time").asText()).isEqualTo(bootTime.toString());
    List<String> shape = new ArrayList<>();
    List<Double> expected = new ArrayList<>();
    for (JsonNode row : timeline.path("rows")) {
      String kind = row.path("kind").asText();
      String name = row.path("name").asText();
      shape.add(kind + " " + name + " " + row.path("status").asText());
      expected.add(
          seconds(
              switch (kind) {
                case "end" -> boot.get("end-boot " + name);
                case "log" -> boot.get("log log");
                default -> boot.get(kind + " " + name);
              }));
      assertThat(row.path("t_s").asDouble())
          .as("%s %s", kind, name)
          .isEqualTo(expected.get(expected.size() - 1));
    }
    assertThat(shape)
        .containsExactly(
            "start provision ok",
            "start imds.fetch ok",
            "event imds.fetch null",
            "end imds.fetch ok",
            "log kvprov null",
            "start user.create error",
            "end user.create error",
            "start hangs unfinished",
            "end provision ok");
    assertThat(expected.get(0)).isGreaterThanOrEqualTo(30.5); // up 30.5 s when the clock was read
    assertThat(timeline.path("rows").get(3).path("duration_s").asDouble()).isEqualTo(0.2);
    assertThat(timeline.path("rows").get(4).path("message").asText())
        .isEqualTo("WARN group docker does not exist");
    assertThat(timeline.path("rows").get(6).path("message").asText()).isEqualTo("useradd exited 9");

    run = CliRun.of("timeline", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .startsWith("boot " + bootTime + " from kvprov records (wall time - Boot)")
        .contains("  kvprov  start  hangs  NEVER FINISHED")
        .contains("  kvprov  end    user.create  0.100s  FAILED")
        .contains("  kvprov  log    kvprov: WARN group docker does not exist");
  }

  @Test
  void ourOwnPool_aWallClockStepBetweenTwoRuns_doesNotMoveTheLaterOne() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry = telemetry(pool, bootClock("30.50"))) {
      telemetry.tracer().spanBuilder("before-step").startSpan().end();
    }
    // The host's time sync sets the wall clock back 10 s; the next run is 10 s later by the boot
    // clock, but about when the first one ran by the wall clock.
    try (KvpTelemetry telemetry = telemetry(pool, bootClock("40.50"))) {
      telemetry.tracer().spanBuilder("after-step").startSpan().end();
    }
    Map<String, Double> boot = new HashMap<>();
    for (var decoded : KvpRecordFormat.decode(pool.read().records()).records()) {
      KvprovRecord r = decoded.record();
      if (r.kind() == KvprovRecord.Kind.END) {
        boot.put("start " + r.name().orElseThrow(), seconds(r.sinceBoot().orElseThrow()));
        boot.put("end " + r.name().orElseThrow(), seconds(r.endSinceBoot().orElseThrow()));
      }
    }

    CliRun run = CliRun.of("timeline", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();

    List<String> rows = new ArrayList<>();
    for (JsonNode row : run.json().path("rows")) {
      String key = row.path("kind").asText() + " " + row.path("name").asText();
      assertThat(row.path("t_s").asDouble()).as(key).isEqualTo(boot.get(key));
      rows.add(key);
    }
    assertThat(rows)
        .containsExactly(
            "start before-step", "end before-step", "start after-step", "end after-step");
    assertThat(boot.get("start after-step")).isGreaterThanOrEqualTo(40.5);
  }

  /**
   * Cloud-init's fixture and kvprov records written around it (30 s before and after, by a boot
   * clock that agrees with cloud-init's boot epoch), an azure-init event and the report.
   */
  private Path mixedPool(String spanName) throws Exception {
    Instant fixtureEvent = Instant.parse("2026-11-22T04:47:46.422511Z");
    Duration up = Duration.between(Instant.ofEpochSecond(FIXTURE_BOOT_EPOCH), Instant.now());
    PoolFile ours = PoolFile.open(dir, 1);
    try (KvpTelemetry telemetry =
        telemetry(
            ours, bootClock(new BigDecimal(up.toMillis()).movePointLeft(3).toPlainString()))) {
      provision(telemetry, fixtureEvent.minusSeconds(30), "early");
      provision(telemetry, fixtureEvent.plusSeconds(30), spanName);
    }
    ours.append(
        List.of(
            new KvpRecord(
                "azure-init-0.1.13|00000000-0000-0000-0000-000000000000|INFO|provision:user|"
                    + "3c9a1d1e-8f8e-4c53-9a57-0c1d2e3f4a5b",
                "Time: 2026-11-22T04:47:46.500Z | Event: message=user created"),
            new KvpRecord(
                "PROVISIONING_REPORT",
                "result=success|agent=kvprov/0.1.0|pps_type=None|vm_id=vm"
                    + "|timestamp=2026-11-22T04:47:50Z")));
    Path mixed = dir.resolve("mixed.kvp");
    Files.write(mixed, Files.readAllBytes(KvpCommandTest.CLOUD_INIT_POOL));
    Files.write(mixed, Files.readAllBytes(ours.path()), java.nio.file.StandardOpenOption.APPEND);
    return mixed;
  }

  @Test
  void mixedPool_mergesEveryWritersRows_onTheBootOfTheMostPreciseClue() throws Exception {
    Path mixed = mixedPool("late");

    CliRun run = CliRun.of("timeline", "--json", "--file", mixed.toString());
    assertThat(run.exit()).isZero();

    JsonNode timeline = run.json();
    assertThat(timeline.path("boot").path("source").asText()).isEqualTo("kvprov");
    Instant boot = Instant.parse(timeline.path("boot").path("time").asText());
    List<String> order = new ArrayList<>();
    double previous = Double.NEGATIVE_INFINITY;
    for (JsonNode row : timeline.path("rows")) {
      double t = row.path("t_s").asDouble();
      assertThat(t).isGreaterThanOrEqualTo(previous);
      previous = t;
      String writer = row.path("writer").asText();
      if (!writer.equals("kvprov")) {
        // Other writers' rows: their wall time less the boot, exactly.
        Instant time = Instant.parse(row.path("time").asText());
        assertThat(t).isEqualTo(seconds(Duration.between(boot, time)));
      }
      if (order.isEmpty() || !order.get(order.size() - 1).equals(writer)) {
        order.add(writer);
      }
    }
    assertThat(order).containsExactly("kvprov", "cloud-init", "azure-init", "report", "kvprov");
    JsonNode azure = timeline.path("rows").get(16);
    assertThat(azure.path("kind").asText() + " " + azure.path("name").asText())
        .isEqualTo("event provision:user");
    assertThat(azure.path("message").asText()).isEqualTo("message=user created");
    assertThat(timeline.path("rows").get(17).path("status").asText()).isEqualTo("ok");
  }

  @Test
  void html_isOneSelfContainedWellFormedPage_withEveryPoolTextEscaped() throws Exception {
    Path mixed = mixedPool(HOSTILE);
    Path page = dir.resolve("timeline.html");

    CliRun run = CliRun.of("timeline", "--file", mixed.toString(), "--html", page.toString());
    assertThat(run.exit()).isZero();

    assertThat(run.out()).isEqualTo("wrote " + page + ": 10 spans, 27 rows\n");
    String html = Files.readString(page, UTF_8);
    assertThat(html).startsWith("<!DOCTYPE html>\n").doesNotContainIgnoringCase("<script");
    assertThat(html.replace("xmlns=\"http://www.w3.org/2000/svg\"", ""))
        .doesNotContain("http://")
        .doesNotContain("https://");
    Document document = parse(html.substring("<!DOCTYPE html>\n".length()));
    List<Element> bars = new ArrayList<>();
    List<Element> points = new ArrayList<>();
    NodeList groups = document.getElementsByTagName("g");
    for (int i = 0; i < groups.getLength(); i++) {
      Element g = (Element) groups.item(i);
      (g.getAttribute("class").equals("bar") ? bars : points).add(g);
    }
    assertThat(bars).hasSize(4 + 4 + 2); // four spans per kvprov run, cloud-init's two
    assertThat(points).hasSize(2 + 2 + 3 + 1 + 1); // an event and a log per run, cloud-init's
    // three, azure-init's event, the report
    assertThat(bars)
        .anySatisfy(
            bar -> {
              assertThat(text(bar, "title")).startsWith(HOSTILE.replace("\u0001", "\\x01") + "\n");
              assertThat(rect(bar).getAttribute("fill")).isEqualTo("#d62728");
            });
    assertThat(bars)
        .filteredOn(bar -> text(bar, "title").startsWith("hangs\n"))
        .hasSize(2)
        .allSatisfy(
            bar -> assertThat(rect(bar).getAttribute("fill")).isEqualTo("url(#unfinished)"));
    assertNothingIsFetched(document.getDocumentElement());
    assertThat(document.getElementsByTagName("svg").getLength()).isEqualTo(1);
  }

  private static String text(Element parent, String tag) {
    return parent.getElementsByTagName(tag).item(0).getTextContent();
  }

  private static Element rect(Element bar) {
    return (Element) bar.getElementsByTagName("rect").item(0);
  }

  /** No element that loads something; no attribute that points anywhere but into the page. */
  private static void assertNothingIsFetched(Element element) {
    assertThat(element.getTagName())
        .isNotIn("script", "img", "image", "link", "iframe", "object", "embed", "use");
    NamedNodeMap attributes = element.getAttributes();
    for (int i = 0; i < attributes.getLength(); i++) {
      String name = attributes.item(i).getNodeName();
      String value = attributes.item(i).getNodeValue();
      assertThat(name).doesNotContain("href").isNotEqualTo("src").doesNotStartWith("on");
      if (!name.equals("xmlns")) {
        assertThat(value).doesNotContain("://");
      }
      assertThat(value.replace("url(#", "")).doesNotContain("url(");
    }
    NodeList children = element.getChildNodes();
    for (int i = 0; i < children.getLength(); i++) {
      if (children.item(i) instanceof Element child) {
        assertNothingIsFetched(child);
      }
    }
  }

  /** The JDK's parser, refusing any DTD and external entity. */
  private static Document parse(String xml) throws Exception {
    DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
    factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
    factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
    factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_DTD, "");
    factory.setAttribute(XMLConstants.ACCESS_EXTERNAL_SCHEMA, "");
    factory.setExpandEntityReferences(false);
    return factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml.getBytes(UTF_8)));
  }

  /**
   * A kvprov boot as the demo leaves it: the agent's process started {@code lead} before its run
   * (the {@code kvprov} milestone; on the demo's first run that includes building the agent), an
   * IMDS attempt that failed and was tried again, then either Ready or a failed user step.
   *
   * @return the pool file
   */
  private Path demoBoot(String name, Duration lead, boolean fails) throws IOException {
    Path poolDir = Files.createDirectories(dir.resolve(name));
    PoolFile pool = PoolFile.open(poolDir, 1);
    Instant t0 = Instant.now();
    try (KvpTelemetry telemetry = telemetry(pool, bootClock("21000"))) {
      Tracer tracer = telemetry.tracer();
      Span run = tracer.spanBuilder("provision").setStartTimestamp(t0).startSpan();
      run.addEvent("boot milestone: kvprov", t0.minus(lead));
      try (var scope = run.makeCurrent()) {
        Span fetch =
            tracer.spanBuilder("imds.fetch").setStartTimestamp(t0.plusMillis(100)).startSpan();
        try (var inFetch = fetch.makeCurrent()) {
          tracer
              .spanBuilder("imds.attempt")
              .setStartTimestamp(t0.plusMillis(100))
              .setAttribute(
                  KvprovAttributes.WARNING, "IMDS answered HTTP 503; trying again in 0.3 s")
              .startSpan()
              .end(t0.plusMillis(350));
          tracer
              .spanBuilder("imds.attempt")
              .setStartTimestamp(t0.plusMillis(650))
              .startSpan()
              .end(t0.plusMillis(800));
        }
        fetch.end(t0.plusMillis(800));
        Span user =
            tracer.spanBuilder("provision.user").setStartTimestamp(t0.plusMillis(900)).startSpan();
        if (fails) {
          user.setStatus(StatusCode.ERROR, "useradd exited 9");
        }
        user.end(t0.plusMillis(1100));
      }
      if (fails) {
        run.setStatus(StatusCode.ERROR, "provisioning failed");
      } else {
        run.addEvent("boot milestone: ready", t0.plusMillis(1900));
      }
      run.end(t0.plusMillis(2000));
      telemetry.report(
          fails
              ? ProvisioningReport.failure(
                  "useradd failed", "kvprov/test", "vm", t0.plusMillis(2000), Map.of())
              : ProvisioningReport.success("kvprov/test", "vm", t0.plusMillis(2000)));
    }
    return poolDir.resolve(".kvp_pool_1");
  }

  private Document page(String... args) throws Exception {
    Path page = dir.resolve("page-" + System.nanoTime() + ".html");
    List<String> all = new ArrayList<>(List.of("timeline", "--html", page.toString()));
    all.addAll(List.of(args));
    CliRun run = CliRun.of(all.toArray(String[]::new));
    assertThat(run.exit()).as(run.err()).isZero();
    return parse(Files.readString(page, UTF_8).substring("<!DOCTYPE html>\n".length()));
  }

  private static List<Element> elements(Document document, String tag, String cssClass) {
    List<Element> found = new ArrayList<>();
    NodeList all = document.getElementsByTagName(tag);
    for (int i = 0; i < all.getLength(); i++) {
      Element e = (Element) all.item(i);
      if (List.of(e.getAttribute("class").split(" ")).contains(cssClass)) {
        found.add(e);
      }
    }
    return found;
  }

  @Test
  void html_anAttemptTriedAgain_isAmberNotAPlainOkBar_andTheLegendSaysWhatAmberIs()
      throws Exception {
    Path pool = demoBoot("flaky", Duration.ofMillis(300), false);

    Document page = page("--file", pool.toString());

    List<Element> attempts =
        elements(page, "g", "bar").stream()
            .filter(bar -> text(bar, "title").startsWith("imds.attempt\n"))
            .toList();
    assertThat(attempts).hasSize(2);
    Element retried = attempts.get(0);
    assertThat(text(retried, "title")).contains("IMDS answered HTTP 503; trying again in 0.3 s");
    String amber = rect(retried).getAttribute("fill");
    String blue = rect(attempts.get(1)).getAttribute("fill");
    assertThat(blue).isEqualTo("#4e79a7");
    assertThat(amber).isNotEqualTo(blue).isNotEqualTo("#d62728");
    assertThat(retried.getTextContent()).contains("warned");
    Element legend = elements(page, "p", "legend").get(0);
    NodeList swatches = legend.getElementsByTagName("span");
    List<String> entries = new ArrayList<>();
    for (int i = 0; i < swatches.getLength(); i++) {
      Element swatch = (Element) swatches.item(i);
      if (swatch.getAttribute("style").contains(amber)) {
        entries.add(swatch.getNextSibling().getTextContent());
      }
    }
    assertThat(entries).singleElement().asString().contains("tried again");
  }

  @Test
  void html_theBanner_showsEveryBootsVerdict_eachLinkedToItsBoot() throws Exception {
    Path root =
        dev.kvprov.inspect.RescuedDisk.of(
            dir,
            Files.readAllBytes(demoBoot("failed", Duration.ofMillis(300), true)),
            Files.readAllBytes(demoBoot("good", Duration.ofMillis(300), false)));

    Document page = page("--root", root.toString());

    List<Element> verdicts = elements(page, "p", "verdict");
    assertThat(verdicts).hasSize(2);
    assertThat(verdicts.get(0).getAttribute("class")).isEqualTo("verdict bad");
    assertThat(verdicts.get(0).getTextContent())
        .startsWith("boot 1 of 2, ")
        .contains("FAILED: useradd failed (step provision.user, provisioning failed)");
    assertThat(verdicts.get(1).getAttribute("class")).isEqualTo("verdict ok");
    assertThat(verdicts.get(1).getTextContent()).startsWith("boot 2 of 2, ").contains(": OK");
    for (int i = 0; i < 2; i++) {
      Element link = (Element) verdicts.get(i).getElementsByTagName("a").item(0);
      assertThat(link.getAttribute("href")).isEqualTo("#boot-" + (i + 1));
    }
    assertThat(verdicts.get(1).getTextContent()).contains("1 warning on the way");
  }

  @Test
  void html_milestoneMarkers_carryTheirNames() throws Exception {
    Path pool = demoBoot("good", Duration.ofMillis(300), false);

    Document page = page("--file", pool.toString());

    List<String> labels = new ArrayList<>();
    for (Element milestone : elements(page, "g", "milestone")) {
      NodeList texts = milestone.getElementsByTagName("text");
      assertThat(texts.getLength()).as(milestone.getTextContent()).isEqualTo(1);
      labels.add(texts.item(0).getTextContent());
    }
    assertThat(labels).containsExactly("kvprov", "ready");
  }

  @Test
  void html_aMilestoneNamedAtLength_hasAShortLabelInsideThePage() throws Exception {
    PoolFile pool = PoolFile.open(dir, 1);
    Instant t0 = Instant.now();
    try (KvpTelemetry telemetry = telemetry(pool, bootClock("21000"))) {
      Span run = telemetry.tracer().spanBuilder("provision").setStartTimestamp(t0).startSpan();
      run.addEvent("boot milestone: " + "x".repeat(500), t0.plusMillis(900));
      run.end(t0.plusMillis(1000));
    }

    Document page = page("--dir", dir.toString());

    Element milestone = elements(page, "g", "milestone").get(0);
    Element label = (Element) milestone.getElementsByTagName("text").item(0);
    assertThat(label.getTextContent()).hasSize(24).endsWith("…");
    assertThat(text(milestone, "title")).contains("x".repeat(500));
    double x = Double.parseDouble(label.getAttribute("x"));
    assertThat(x - 24 * 6.7).as("the label ends left of its marker, inside the page").isPositive();
  }

  @Test
  void html_aProcessStartLongBeforeTheRun_isLeftOutOfTheDrawing_andThePageSaysSo()
      throws Exception {
    // the demo's first run: the agent was built for 100 s before its run began
    Path pool = demoBoot("first-demo", Duration.ofSeconds(100), false);

    Document page = page("--file", pool.toString());

    Element run =
        elements(page, "g", "bar").stream()
            .filter(bar -> text(bar, "title").startsWith("provision\n"))
            .findFirst()
            .orElseThrow();
    double width = Double.parseDouble(rect(run).getAttribute("width"));
    assertThat(width).as("the run fills the axis, not a sliver").isGreaterThan(0.9 * 820);
    assertThat(elements(page, "p", "note"))
        .singleElement()
        .extracting(Element::getTextContent)
        .asString()
        .contains("left out of the drawing", "milestone kvprov", "100.000 s before");
    List<List<String>> rows = new ArrayList<>();
    NodeList trs = page.getElementsByTagName("tr");
    for (int i = 0; i < trs.getLength(); i++) {
      NodeList tds = ((Element) trs.item(i)).getElementsByTagName("td");
      List<String> cells = new ArrayList<>();
      for (int j = 0; j < tds.getLength(); j++) {
        cells.add(tds.item(j).getTextContent());
      }
      rows.add(cells);
    }
    assertThat(rows)
        .as("the table still lists it")
        .anySatisfy(cells -> assertThat(cells).containsSubsequence("milestone", "kvprov"));
  }

  @Test
  void html_ofAHugePool_drawsABoundedNumberOfBars_andSaysSo() throws Exception {
    List<KvpRecord> records = new ArrayList<>();
    for (int i = 0; i < TimelinePage.MAX_BARS + 5; i++) {
      for (String type : List.of("start", "finish")) {
        records.add(
            new KvpRecord(
                "CLOUD_INIT|" + FIXTURE_BOOT_EPOCH + "|" + type + "|step" + i + "|" + i,
                "{\"name\":\"step"
                    + i
                    + "\",\"type\":\""
                    + type
                    + "\",\"ts\":\"2026-11-22T04:40:00."
                    + String.format("%06d", i)
                    + "Z\",\"result\":\"SUCCESS\",\"msg\":\"\"}"));
      }
    }
    PoolFile.open(dir, 1).append(records);
    Path page = dir.resolve("big.html");

    CliRun run = CliRun.of("timeline", "--dir", dir.toString(), "--html", page.toString());
    assertThat(run.exit()).isZero();

    Document document = parse(Files.readString(page).substring("<!DOCTYPE html>\n".length()));
    int bars = 0;
    NodeList groups = document.getElementsByTagName("g");
    for (int i = 0; i < groups.getLength(); i++) {
      bars += ((Element) groups.item(i)).getAttribute("class").equals("bar") ? 1 : 0;
    }
    assertThat(bars).isEqualTo(TimelinePage.MAX_BARS);
    assertThat(document.getDocumentElement().getTextContent())
        .contains("Only the first 1000 of 1005 spans are drawn.")
        .contains("Only the first 2000 of 2010 rows listed.");
  }

  @Test
  void bootTime_givenAsRfc3339OrEpochSeconds_overridesThePoolsClues() throws Exception {
    String pool = KvpCommandTest.CLOUD_INIT_POOL.toString();

    CliRun run =
        CliRun.of("timeline", "--json", "--file", pool, "--boot-time", "2026-11-22T04:47:46Z");
    assertThat(run.exit()).isZero();
    JsonNode timeline = run.json();
    assertThat(timeline.path("boot").path("source").asText()).isEqualTo("option");
    assertThat(timeline.path("rows").get(0).path("t_s").asDouble()).isEqualTo(0.422511);

    run = CliRun.of("timeline", "--json", "--file", pool, "--boot-time", "1795322866.5");
    assertThat(run.exit()).isZero();
    assertThat(run.json().path("rows").get(0).path("t_s").asDouble()).isEqualTo(-0.077489);

    run = CliRun.of("timeline", "--file", pool, "--boot-time", "2026-11-22T04:47:46+01:00");
    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .startsWith("boot 2026-11-22T03:47:46Z given with --boot-time\n")
        .contains("  +3600.423s  cloud-init  start");

    // Without an offset: UTC, as everywhere else in kvp.
    run = CliRun.of("timeline", "--json", "--file", pool, "--boot-time", "2026-11-22T04:47:46");
    assertThat(run.exit()).isZero();
    assertThat(run.json().path("boot").path("time").asText()).isEqualTo("2026-11-22T04:47:46Z");
    assertThat(run.json().path("rows").get(0).path("t_s").asDouble()).isEqualTo(0.422511);

    run = CliRun.of("timeline", "--file", pool, "--boot-time", "yesterday");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("not a time: yesterday");
  }

  @Test
  void help_aOneLineSummary_thenACompleteDescription_inLinesThatFit() {
    String[] description =
        KvpCommand.commandLine()
            .getSubcommands()
            .get("timeline")
            .getCommandSpec()
            .usageMessage()
            .description();
    assertThat(description).allSatisfy(line -> assertThat(line).hasSizeLessThanOrEqualTo(78));
    assertThat(description[1]).isEmpty();
    String body = String.join(" ", List.of(description).subList(2, description.length));
    assertThat(body)
        .endsWith(".")
        .doesNotContain(description[0])
        .contains("azure-init", "PROVISIONING_REPORT", "--boot-time", "--html");
    assertThat(body.chars().filter(c -> c == '(').count())
        .isEqualTo(body.chars().filter(c -> c == ')').count());

    CliRun run = CliRun.of("timeline", "--help");
    assertThat(run.exit()).isZero();
    assertThat(run.out()).contains(description[description.length - 1]);
    assertThat(run.out().lines()).allSatisfy(l -> assertThat(l).hasSizeLessThanOrEqualTo(80));
  }

  @Test
  void spansOverCenturies_inTextJsonAndHtml_withExactSeconds() throws Exception {
    PoolFile.open(dir, 1).append(KvprovSpanRecords.overCenturies());
    Instant origin = Instant.parse("0000-01-01T00:00:00Z");
    Instant centuriesStart = Instant.parse("2026-11-22T04:40:00Z");
    Instant centuriesEnd = Instant.parse("2500-01-01T00:00:00Z");
    Instant last = Instant.parse("9999-12-31T23:59:59.999999999Z");

    CliRun run = CliRun.of("timeline", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    JsonNode timeline = run.json();
    assertThat(timeline.path("boot").path("origin").asText()).isEqualTo(origin.toString());
    assertThat(rows(timeline))
        .containsExactly(
            "start all-of-time 0.0 ok",
            "start centuries " + seconds(Duration.between(origin, centuriesStart)) + " ok",
            "end centuries " + seconds(Duration.between(origin, centuriesEnd)) + " ok",
            "end all-of-time " + seconds(Duration.between(origin, last)) + " ok");
    assertThat(timeline.path("rows").get(2).path("duration_s").asDouble())
        .isEqualTo(seconds(Duration.between(centuriesStart, centuriesEnd)));
    assertThat(timeline.path("rows").get(3).path("duration_s").asDouble())
        .isEqualTo(seconds(Duration.between(origin, last)));

    run = CliRun.of("timeline", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .contains(
            String.format(
                java.util.Locale.ROOT,
                "end    centuries  %.3fs",
                seconds(Duration.between(centuriesStart, centuriesEnd))));

    Path page = dir.resolve("centuries.html");
    run = CliRun.of("timeline", "--dir", dir.toString(), "--html", page.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEqualTo("wrote " + page + ": 2 spans, 4 rows\n");
    Document document =
        parse(Files.readString(page, UTF_8).substring("<!DOCTYPE html>\n".length()));
    NodeList groups = document.getElementsByTagName("g");
    List<String> bars = new ArrayList<>();
    for (int i = 0; i < groups.getLength(); i++) {
      bars.add(text((Element) groups.item(i), "title").lines().findFirst().orElseThrow());
    }
    assertThat(bars).containsExactly("all-of-time", "centuries");
  }

  @Test
  void aChainOfFiveThousandSpans_inTextJsonAndHtml() throws Exception {
    int depth = 5000;
    Instant t0 = Instant.parse("2026-11-22T04:40:00Z");
    PoolFile.open(dir, 1).append(KvprovSpanRecords.chain(depth, t0));

    CliRun run = CliRun.of("timeline", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    JsonNode timeline = run.json();
    List<String> rows = rows(timeline);
    assertThat(rows).hasSize(2 * depth);
    for (int i = 0; i < depth; i++) {
      // s0 starts first, then each child a millisecond later; ends in the reverse order
      assertThat(rows.get(i)).isEqualTo("start s" + i + " " + i / 1000.0 + " ok");
      assertThat(rows.get(2 * depth - 1 - i))
          .isEqualTo("end s" + i + " " + (2 * depth - i) / 1000.0 + " ok");
    }

    run = CliRun.of("timeline", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out().lines()).hasSize(1 + 2 * depth);

    Path page = dir.resolve("chain.html");
    run = CliRun.of("timeline", "--dir", dir.toString(), "--html", page.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out()).isEqualTo("wrote " + page + ": 5000 spans, 10000 rows\n");
    parse(Files.readString(page, UTF_8).substring("<!DOCTYPE html>\n".length()));
  }

  @Test
  void withoutAnyBootClue_timesCountFromTheFirstEvent_andTheHeaderSaysSo() throws Exception {
    PoolFile.open(dir, 1)
        .append(
            List.of(
                new KvpRecord(
                    "azure-init-0.1.13|vm|ERROR|provision:user|1", "Time: 2026-11-22T04:47:47Z"),
                new KvpRecord(
                    "azure-init-0.1.13|vm|INFO|provision:ssh|2",
                    "Time: 2026-11-22T04:47:46.5Z | Event: ok"),
                new KvpRecord("PROVISIONING_REPORT", "result=error|reason=x|timestamp=garbage")));

    CliRun run = CliRun.of("timeline", "--dir", dir.toString());
    assertThat(run.exit()).isZero();

    assertThat(run.out())
        .isEqualTo(
            String.join(
                "\n",
                "boot time unknown: seconds since the first event, 2026-11-22T04:47:46.500Z",
                "  +0.000s  azure-init  event  provision:ssh: ok",
                "  +0.500s  azure-init  event  provision:user  ERROR",
                "1 spans or events without a readable time left out",
                ""));
    run = CliRun.of("timeline", "--json", "--dir", dir.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.json().path("boot").toString())
        .isEqualTo("{\"time\":null,\"source\":\"none\",\"origin\":\"2026-11-22T04:47:46.500Z\"}");
  }

  @Test
  void emptyPool_saysSo_andExitsZero() throws Exception {
    Path empty = Files.createFile(dir.resolve("empty.kvp"));
    Path page = dir.resolve("empty.html");

    CliRun run = CliRun.of("timeline", "--file", empty.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .isEqualTo(
            "boot time unknown, and nothing in the pool has a time\n"
                + "no timed events in "
                + empty
                + "\n");

    run = CliRun.of("timeline", "--json", "--file", empty.toString());
    assertThat(run.exit()).isZero();
    assertThat(run.json().toString())
        .isEqualTo(
            "{\"boot\":{\"time\":null,\"source\":\"none\",\"origin\":null},\"rows\":[],\"undated\":0}");

    run = CliRun.of("timeline", "--file", empty.toString(), "--html", page.toString());
    assertThat(run.exit()).isZero();
    assertThat(
            parse(Files.readString(page).substring("<!DOCTYPE html>\n".length()))
                .getDocumentElement()
                .getTextContent())
        .contains("No timed events in this pool.");
  }

  @Test
  void aPageThatCannotBeWritten_isAnIoError() {
    Path page = dir.resolve("no/such/dir/t.html");

    CliRun run =
        CliRun.of(
            "timeline",
            "--file",
            KvpCommandTest.CLOUD_INIT_POOL.toString(),
            "--html",
            page.toString());
    assertThat(run.exit()).isEqualTo(3);
    assertThat(run.err())
        .isEqualTo("kvp timeline: cannot write " + page + ": no such file or directory\n");
  }

  @Test
  void damagedPools_giveATimelineAndAPage_neverAnException() {
    Trials.run(60, r -> timelineAndPageOf(HostilePools.pool(r)));
  }

  private static void timelineAndPageOf(byte[] pool) throws Exception {
    Path file = Files.createTempFile("kvp-timeline", ".kvp");
    Path page = Files.createTempFile("kvp-timeline", ".html");
    try {
      Files.write(file, pool);
      for (List<String> args :
          List.of(List.of("--json"), List.of("--html", page.toString()), List.<String>of())) {
        List<String> all = new ArrayList<>(List.of("timeline", "--file", file.toString()));
        all.addAll(args);

        int exit = CliRun.of(all.toArray(String[]::new)).exit(); // fails on an exception

        if (InputKind.of(pool, Math.min(pool.length, InputKind.HEAD_BYTES)).notAPool() != null) {
          assertThat(exit).as("noise is refused").isEqualTo(3);
          return;
        }
        assertThat(exit).isZero();
      }
      parse(Files.readString(page, UTF_8).substring("<!DOCTYPE html>\n".length()));
    } finally {
      Files.deleteIfExists(file);
      Files.deleteIfExists(page);
    }
  }
}
