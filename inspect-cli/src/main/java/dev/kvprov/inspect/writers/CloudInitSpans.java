package dev.kvprov.inspect.writers;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * cloud-init's spans: a start and a finish event of one name make a span; spans nest by their
 * {@code /}-joined names ({@code init-network/config-ssh} under {@code init-network}).
 */
final class CloudInitSpans implements SpanReader<ObjectNode> {
  private final List<SpanNode> roots = new ArrayList<>();
  private final Deque<SpanNode> open = new ArrayDeque<>();

  @Override
  public void add(Item item, ObjectNode event) {
    String type = event.path("type").asText();
    String name = event.path("name").asText();
    Instant ts = SpanForest.time(event.path("ts").asText());
    if (type.equals("start")) {
      SpanNode node = new SpanNode(name, Writers.CLOUD_INIT);
      node.start = ts;
      SpanNode parent = null;
      for (SpanNode running : open) {
        if (name.startsWith(running.name + "/")) {
          parent = running;
          break;
        }
      }
      (parent == null ? roots : parent.children).add(node);
      open.push(node);
    } else if (type.equals("finish")) {
      SpanNode finished = null;
      for (SpanNode running : open) {
        if (running.name.equals(name)) {
          finished = running;
          open.remove(running);
          break;
        }
      }
      if (finished == null) {
        // Its start is gone (cleared, or cut off by a budget): a failure must still show.
        finished = new SpanNode(name, Writers.CLOUD_INIT);
        roots.add(finished);
      }
      finished.end = ts;
      String result = event.path("result").asText("SUCCESS");
      finished.status = result.equals("FAIL") ? "error" : "ok";
      // a WARN finish keeps its message, but the step did not fail
      finished.message = result.equals("SUCCESS") ? "" : event.path("msg").asText("");
    }
  }

  @Override
  public List<SpanNode> roots(List<String> notes) {
    return roots;
  }
}
