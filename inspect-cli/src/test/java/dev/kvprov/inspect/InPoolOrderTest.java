package dev.kvprov.inspect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Items made ready on worker threads come back in the order they were read, all of them. */
class InPoolOrderTest {
  private static Supplier<Item> item(int index) {
    return () -> new Item(index, List.of(index), "key-" + index, "other", "value", List.of());
  }

  @Test
  void resultsComeBackInPoolOrder_acrossBatches_howeverLongEachTakes() {
    int count = 11 * InPoolOrder.BATCH + 17;
    List<Integer> handedOn = new ArrayList<>();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    try (InPoolOrder<Integer> ready =
        new InPoolOrder<>(
            item -> {
              threads.add(Thread.currentThread().getName());
              // uneven work, so that later batches often finish first
              LockSupport.parkNanos(ThreadLocalRandom.current().nextInt(20_000));
              return item.index();
            },
            handedOn::add,
            4)) {
      IntStream.range(0, count).forEach(i -> ready.accept(item(i)));
      ready.drain();
    }

    assertThat(handedOn).containsExactlyElementsOf(IntStream.range(0, count).boxed().toList());
    assertThat(threads).containsOnly("kvp-decode");
  }

  @Test
  void aNullResultIsNotHandedOn_andDrainHandsOnWhatIsThereBetweenSources() {
    List<Integer> handedOn = new ArrayList<>();
    try (InPoolOrder<Integer> ready =
        new InPoolOrder<>(item -> item.index() % 2 == 0 ? item.index() : null, handedOn::add, 2)) {
      IntStream.range(0, 10).forEach(i -> ready.accept(item(i)));
      ready.drain();
      assertThat(handedOn).containsExactly(0, 2, 4, 6, 8);
      ready.accept(item(10));
      ready.drain();
    }
    assertThat(handedOn).containsExactly(0, 2, 4, 6, 8, 10);
  }

  @Test
  void withOneProcessor_everythingRunsOnTheCallingThread_asItIsAccepted() {
    List<String> threads = new ArrayList<>();
    List<Integer> handedOn = new ArrayList<>();
    try (InPoolOrder<Integer> ready =
        new InPoolOrder<>(
            item -> {
              threads.add(Thread.currentThread().getName());
              return item.index();
            },
            handedOn::add,
            1)) {
      ready.accept(item(0));
      assertThat(handedOn).containsExactly(0);
      ready.accept(item(1));
    }
    assertThat(handedOn).containsExactly(0, 1);
    assertThat(threads).containsOnly(Thread.currentThread().getName());
  }

  @Test
  void aDefectOnAWorker_isRaisedOnTheCallingThread_asItself() {
    try (InPoolOrder<Integer> ready =
        new InPoolOrder<>(
            item -> {
              if (item.index() == 300) {
                throw new IllegalStateException("item 300 does not read");
              }
              return item.index();
            },
            i -> {},
            2)) {
      IntStream.range(0, 400).forEach(i -> ready.accept(item(i)));
      assertThatThrownBy(ready::drain)
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("item 300 does not read");
    }
  }
}
