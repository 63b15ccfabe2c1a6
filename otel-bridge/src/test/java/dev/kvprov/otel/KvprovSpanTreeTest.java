package dev.kvprov.otel;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.common.Attributes;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** kvprov's span tree, from its records alone: parents by id, whatever is missing or looped. */
class KvprovSpanTreeTest {
  private static KvprovRecord record(KvprovRecord.Kind kind, String id, String parent) {
    List<KvprovRecord.Field> fields = new ArrayList<>();
    fields.add(new KvprovRecord.Field(KvpRecordFormat.SPAN, id));
    if (parent != null) {
      fields.add(new KvprovRecord.Field(KvpRecordFormat.PARENT, parent));
    }
    fields.add(new KvprovRecord.Field(KvpRecordFormat.NAME, "span " + id));
    return new KvprovRecord(kind, KvprovRecord.Level.INFO, "vm", id, fields, Attributes.empty());
  }

  private static KvprovRecord start(String id, String parent) {
    return record(KvprovRecord.Kind.START, id, parent);
  }

  private static KvprovRecord end(String id, String parent) {
    return record(KvprovRecord.Kind.END, id, parent);
  }

  @Test
  void spansNestByParentId_inTheOrderTheyCame_withAnEndOrAStartMissing() {
    List<String> notes = new ArrayList<>();
    List<KvprovSpanTree.Span> roots =
        KvprovSpanTree.roots(
            List.of(
                start("a1", null),
                start("b2", "a1"),
                end("c3", "a1"), // its start was taken by a clear
                end("b2", "a1"),
                start("d4", "ff"), // its parent is not in the pool
                end("a1", null)),
            notes);

    assertThat(roots).extracting(KvprovSpanTree.Span::id).containsExactly("a1", "d4");
    KvprovSpanTree.Span a = roots.get(0);
    assertThat(a.children()).extracting(KvprovSpanTree.Span::id).containsExactly("b2", "c3");
    assertThat(a.children().get(1).start()).isNull();
    assertThat(a.children().get(1).first().kind()).isEqualTo(KvprovRecord.Kind.END);
    assertThat(roots.get(1).end()).as("never finished").isNull();
    assertThat(notes).isEmpty();
  }

  @Test
  void parentsThatLoop_makeRoots_andSaySo() {
    List<String> notes = new ArrayList<>();
    List<KvprovSpanTree.Span> roots =
        KvprovSpanTree.roots(List.of(end("a1", "b2"), end("b2", "a1"), end("c3", "c3")), notes);

    assertThat(roots).extracting(KvprovSpanTree.Span::id).contains("c3");
    assertThat(notes).anyMatch(n -> n.contains("lead back"));
    int spans = 0;
    List<KvprovSpanTree.Span> todo = new ArrayList<>(roots);
    while (!todo.isEmpty()) {
      KvprovSpanTree.Span s = todo.remove(0);
      spans++;
      todo.addAll(s.children());
    }
    assertThat(spans).as("no span hidden").isEqualTo(3);
  }
}
