package dev.kvprov.inspect.render;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.ItemReader;
import dev.kvprov.inspect.writers.SpanNode;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceId;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.data.StatusData;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * A pool's spans as OpenTelemetry {@link SpanData}, for {@code kvp export}.
 *
 * <p>Ids a writer recorded (kvprov's) are kept, so the exported trace is the one the agent
 * produced. Writers that record none (cloud-init, azure-init) get ids derived from what they did
 * record, so that exporting the same pool twice gives the same ids: one trace per writer and boot,
 * each span's id from its trace, its place in the tree and its start.
 *
 * <p>Feed it every item of the pool first (it learns the VM id and cloud-init's boot times from the
 * keys), then call {@link #spans}.
 */
public final class ExportedSpans implements Consumer<Item> {
  public static final AttributeKey<String> SERVICE_NAME = AttributeKey.stringKey("service.name");
  private static final AttributeKey<String> HOST_ID = AttributeKey.stringKey("host.id");
  private static final AttributeKey<String> POOL = AttributeKey.stringKey("kvp.pool");
  private static final AttributeKey<Boolean> UNFINISHED = AttributeKey.booleanKey("kvp.unfinished");
  private static final String NEVER_FINISHED = "never finished";

  private static final Pattern VM_ID =
      Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  private static final String NO_VM_ID = "00000000-0000-0000-0000-000000000000";

  /** cloud-init's boot epoch can differ by a second between the stages of one boot. */
  private static final long BOOT_JITTER_SECONDS = 2;

  private final String pool;
  private final Map<String, String> writerVmIds = new HashMap<>();
  private String poolVmId;
  private final Map<String, TreeSet<Long>> bootEpochs = new HashMap<>();

  /** The spans, parents before children, and how many could not be exported. */
  public record Result(List<SpanData> spans, int withoutStart) {}

  /**
   * @param pool where the pool came from (a path, or {@code stdin}): a resource attribute
   */
  public ExportedSpans(String pool) {
    this.pool = pool;
  }

  @Override
  public void accept(Item item) {
    ItemReader.Origin origin = item.writer().reader().origin(item);
    if (origin.vmId() != null) {
      vmId(origin.vmIdOfPool() ? null : item.writer().name(), origin.vmId());
    }
    if (origin.bootEpoch() != null) {
      bootEpochs
          .computeIfAbsent(item.writer().name(), w -> new TreeSet<>())
          .add(origin.bootEpoch());
    }
  }

  /** Every writer in a pool runs on the same VM: one that does not say which is told by another. */
  private void vmId(String writer, String text) {
    String id = text.toLowerCase(Locale.ROOT);
    if (!VM_ID.matcher(id).matches() || id.equals(NO_VM_ID)) {
      return;
    }
    if (writer != null) {
      writerVmIds.put(writer, id);
    }
    poolVmId = id;
  }

  private String vmIdOf(String writer) {
    return writerVmIds.getOrDefault(writer, poolVmId);
  }

  public Result spans(List<SpanNode> roots) {
    Walk walk = new Walk(roots);
    walk.visitAll(roots);
    return new Result(List.copyOf(walk.spans), walk.withoutStart);
  }

  /**
   * A span still to visit, under its parent's context (null for a root) and the names of its
   * ancestors ({@code path}).
   */
  private record Visit(SpanNode node, SpanContext parent, String path) {}

  private final class Walk {
    final Instant latest;
    final List<SpanData> spans = new ArrayList<>();
    final Map<String, Resource> resources = new HashMap<>();
    final Map<String, Instant> firstStarts = new HashMap<>();
    final Map<String, Integer> seen = new HashMap<>();
    int withoutStart;

    Walk(List<SpanNode> roots) {
      latest = latest(roots);
      for (SpanNode root : roots) {
        if (root.start != null) {
          firstStarts.merge(root.writer.name(), root.start, (a, b) -> a.isBefore(b) ? a : b);
        }
      }
    }

    /**
     * Every span, parents before children, siblings in order (the order the derived ids count
     * repeats in). A loop over an explicit stack, not recursion: a damaged or hostile pool can nest
     * spans thousands deep.
     */
    void visitAll(List<SpanNode> roots) {
      Deque<Visit> pending = new ArrayDeque<>();
      for (int i = roots.size() - 1; i >= 0; i--) {
        pending.push(new Visit(roots.get(i), null, ""));
      }
      while (!pending.isEmpty()) {
        Visit visit = pending.pop();
        String place = visit.path() + "\n" + visit.node().name;
        SpanContext context = visit(visit.node(), visit.parent(), place);
        List<SpanNode> children = visit.node().children;
        for (int i = children.size() - 1; i >= 0; i--) {
          pending.push(new Visit(children.get(i), context, place));
        }
      }
    }

    /**
     * Exports one span (unless it has no start); its context, for its children. {@code place}: the
     * names from its root down to it.
     */
    private SpanContext visit(SpanNode node, SpanContext parent, String place) {
      SpanContext context;
      SpanContext parentContext;
      if (TraceId.isValid(node.traceId) && SpanId.isValid(node.spanId)) {
        context = context(node.traceId, node.spanId);
        parentContext =
            SpanId.isValid(node.parentSpanId)
                ? context(node.traceId, node.parentSpanId)
                : parent == null ? SpanContext.getInvalid() : parent;
      } else {
        String traceId = parent != null ? parent.getTraceId() : derivedTraceId(node);
        String occurrence = traceId + place + "\n" + node.start;
        int n = seen.merge(occurrence, 1, Integer::sum);
        context = context(traceId, hash(occurrence + "\n" + n, SpanId.getLength()));
        parentContext = parent == null ? SpanContext.getInvalid() : parent;
      }
      if (node.start == null) {
        withoutStart++;
      } else {
        spans.add(span(node, context, parentContext));
      }
      return context;
    }

    private ExportedSpan span(SpanNode node, SpanContext context, SpanContext parent) {
      AttributesBuilder attributes = node.attributes.toBuilder();
      Instant end = node.end;
      StatusData status =
          switch (node.status) {
            case "error" -> StatusData.create(StatusCode.ERROR, node.message);
            case "unfinished" -> {
              // Started, never finished: hung or killed. It ran at least until the last thing the
              // pool saw; an error, because provisioning did not get past it.
              attributes.put(UNFINISHED, true);
              end = latest.isAfter(node.start) ? latest : node.start;
              yield StatusData.create(StatusCode.ERROR, NEVER_FINISHED);
            }
            // OpenTelemetry's "no error": what kvprov records for most spans.
            default -> StatusData.unset();
          };
      if (end == null || end.isBefore(node.start)) {
        end = node.start;
      }
      return new ExportedSpan(
          node.name,
          context,
          parent,
          status,
          nanos(node.start),
          nanos(end),
          attributes.build(),
          resources.computeIfAbsent(node.writer.name(), this::resource),
          node.milestones.stream()
              .map(
                  m ->
                      io.opentelemetry.sdk.trace.data.EventData.create(
                          nanos(m.at()), "boot milestone: " + m.name(), Attributes.empty()))
              .toList());
    }

    private Resource resource(String writer) {
      AttributesBuilder attributes = Attributes.builder().put(SERVICE_NAME, writer);
      String vmId = vmIdOf(writer);
      if (vmId != null) {
        attributes.put(HOST_ID, vmId);
      }
      return Resource.create(attributes.put(POOL, pool).build());
    }

    /** One trace per writer, VM and boot. */
    private String derivedTraceId(SpanNode root) {
      return hash(
          root.writer.name() + "\n" + vmIdOf(root.writer.name()) + "\n" + boot(root),
          TraceId.getLength());
    }

    /**
     * The boot a root span belongs to: the last boot the writer's keys name that began before the
     * span did (cloud-init's); for a writer whose keys name none, its first span in the pool (every
     * writer empties the pool once per boot, so a pool mostly holds one).
     */
    private String boot(SpanNode root) {
      TreeSet<Long> epochs = bootEpochs.get(root.writer.name());
      if (epochs != null && root.start != null) {
        Long boot = null;
        Long previous = null;
        for (long epoch : epochs) {
          boolean sameBoot = previous != null && epoch - previous <= BOOT_JITTER_SECONDS;
          previous = epoch;
          if (epoch > root.start.getEpochSecond() + BOOT_JITTER_SECONDS) {
            break;
          }
          if (!sameBoot) {
            boot = epoch;
          }
        }
        if (boot != null) {
          return "boot " + boot;
        }
      }
      return "first span " + firstStarts.get(root.writer.name());
    }
  }

  private static Instant latest(List<SpanNode> roots) {
    Instant latest = Instant.EPOCH;
    Deque<SpanNode> pending = new ArrayDeque<>(roots);
    while (!pending.isEmpty()) {
      SpanNode node = pending.pop();
      for (Instant t : new Instant[] {node.start, node.end}) {
        if (t != null && t.isAfter(latest)) {
          latest = t;
        }
      }
      pending.addAll(node.children);
    }
    return latest;
  }

  private static SpanContext context(String traceId, String spanId) {
    return SpanContext.create(traceId, spanId, TraceFlags.getSampled(), TraceState.getDefault());
  }

  /** OTLP's time: nanoseconds since 1970 in 64 bits; a damaged timestamp is held to that range. */
  private static long nanos(Instant t) {
    if (t.getEpochSecond() < 0) {
      return 0;
    }
    try {
      return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000_000L), t.getNano());
    } catch (ArithmeticException e) {
      return Long.MAX_VALUE;
    }
  }

  /** A stable id of {@code hexLength} hex digits from {@code seed}; never the invalid all-zero. */
  private static String hash(String seed, int hexLength) {
    byte[] digest;
    try {
      digest = MessageDigest.getInstance("SHA-256").digest(seed.getBytes(UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
    digest[hexLength / 2 - 1] |= 1;
    return HexFormat.of().formatHex(digest, 0, hexLength / 2);
  }
}
