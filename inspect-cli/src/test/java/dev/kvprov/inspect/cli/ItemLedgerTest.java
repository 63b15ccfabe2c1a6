package dev.kvprov.inspect.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvprov.inspect.cli.ItemLedger.Sighting;
import dev.kvprov.inspect.cli.ItemLedger.State;
import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.Writers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ItemLedgerTest {
  private final ItemLedger ledger = new ItemLedger();

  private static Sighting whole(String content) {
    return sighting(content, State.WHOLE);
  }

  private static Sighting sighting(String content, State state) {
    String[] kv = content.split("=", 2);
    return new Sighting(new Item(0, List.of(0), kv[0], Writers.OTHER, kv[1], List.of()), state);
  }

  private List<String> next(Sighting... scan) {
    List<String> shown = new ArrayList<>();
    ItemLedger.Batch batch = ledger.next(List.of(scan));
    if (batch.cleared()) {
      shown.add("-- cleared --");
    }
    batch.appeared().forEach(i -> shown.add(i.key() + "=" + i.value()));
    return shown;
  }

  @Test
  void items_areShownOnce_whereverTheyMove() {
    assertThat(next(whole("a=1"), whole("b=1"))).containsExactly("a=1", "b=1");
    assertThat(next(whole("a=1"), whole("b=1"), whole("c=1"))).containsExactly("c=1");
    assertThat(next(whole("c=1"), whole("b=1"), whole("a=1"))).isEmpty();
    assertThat(next(whole("c=1"), whole("b=2"), whole("a=1"))).containsExactly("b=2");
  }

  @Test
  void identicalItems_areCounted_andOneThatLeftAndCameBack_isShownAgain() {
    assertThat(next(whole("a=1"), whole("a=1"))).containsExactly("a=1", "a=1");
    assertThat(next(whole("a=1"))).isEmpty();
    assertThat(next(whole("a=1"), whole("b=1"), whole("a=1"))).containsExactly("b=1", "a=1");
  }

  @Test
  void theClear_isWhenNoKeyShownIsLeft_notWhenSomeItemsAreGoneOrChanged() {
    next(whole("a=1"), whole("b=1"));
    assertThat(next(whole("b=1"))).isEmpty();
    assertThat(next(whole("b=2"))).as("replaced in place").containsExactly("b=2");
    assertThat(next(whole("b=1"))).containsExactly("b=1");
    assertThat(next()).containsExactly("-- cleared --");
    assertThat(next()).isEmpty();
    assertThat(next(whole("b=1"))).containsExactly("b=1");
    assertThat(next(whole("c=1"), whole("d=1")))
        .as("cleared and refilled between two scans")
        .containsExactly("-- cleared --", "c=1", "d=1");
  }

  @Test
  void anOpenGroup_isShownOnceTwoScansInARowFindItTheSame() {
    assertThat(next(sighting("ci=part", State.OPEN))).isEmpty();
    assertThat(ledger.waiting()).isTrue();
    assertThat(next(sighting("ci=part and rest", State.OPEN))).isEmpty();
    assertThat(next(whole("x=1"), sighting("ci=part and rest", State.OPEN)))
        .containsExactly("x=1", "ci=part and rest");
    assertThat(ledger.waiting()).isFalse();
    assertThat(next(whole("x=1"), sighting("ci=part and rest", State.OPEN))).isEmpty();
  }

  @Test
  void anIncompleteGroup_isNotAnItem() {
    assertThat(next(sighting("kvprov=1 of 2", State.INCOMPLETE))).isEmpty();
    assertThat(ledger.waiting()).isFalse();
    assertThat(next(whole("x=1"), whole("kvprov=1 and 2")))
        .containsExactly("x=1", "kvprov=1 and 2");
    assertThat(next(whole("x=1"), sighting("kvprov=1 of 2", State.INCOMPLETE))).isEmpty();
    assertThat(next(whole("x=1"), whole("kvprov=1 and 2")))
        .as("its piece is back: the item is in the pool again")
        .containsExactly("kvprov=1 and 2");
  }

  @Test
  void baseline_takesWhatIsThereAsShown_openGroupsToo() {
    ledger.baseline(
        List.of(
            whole("a=1"),
            sighting("ci=1", State.OPEN),
            sighting("kvprov=1 of 2", State.INCOMPLETE)));
    assertThat(ledger.waiting()).isFalse();
    assertThat(next(whole("a=1"), sighting("ci=1", State.OPEN), whole("kvprov=1 and 2")))
        .containsExactly("kvprov=1 and 2");
  }
}
