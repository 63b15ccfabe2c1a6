package dev.kvprov.inspect.pool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvprov.inspect.writers.Item;
import dev.kvprov.inspect.writers.Writers;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Items made ready on worker threads come back in the order they were read, all of them. */
class InPoolOrderTest {
  private static Supplier<Item> item(int index) {
    return () -> new Item(index, List.of(index), "key-" + index, Writers.OTHER, "value", List.of());
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
    assertThat(threads).isNotEmpty().allMatch(name -> name.startsWith("kvp-decode-"));
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
  void aDefectOnAWorker_isRaisedOnTheCallingThread_asItself_afterTheItemsBeforeIt() {
    List<Integer> handedOn = new ArrayList<>();
    try (InPoolOrder<Integer> ready = new InPoolOrder<>(failingAt(300), handedOn::add, 2)) {
      assertThatThrownBy(
              () -> {
                IntStream.range(0, 1000).forEach(i -> ready.accept(item(i)));
                ready.drain();
              })
          .isInstanceOf(IllegalStateException.class)
          .hasMessage("item 300 does not read");
    }
    // the last item shown is the one before the culprit
    assertThat(handedOn).containsExactlyElementsOf(IntStream.range(0, 300).boxed().toList());
  }

  @Test
  void anErrorOnAWorker_isRaisedAsItself() {
    try (InPoolOrder<Integer> ready =
        new InPoolOrder<>(
            item -> {
              throw new StackOverflowError();
            },
            i -> {},
            2)) {
      ready.accept(item(0));
      assertThatThrownBy(ready::drain).isInstanceOf(StackOverflowError.class);
    }
  }

  @Test
  void whenNoThreadCanBeStarted_theCallingThreadDoesTheWork_nothingLost() {
    List<Integer> handedOn = new ArrayList<>();
    List<String> threads = new ArrayList<>();
    ThreadFactory refusing =
        task ->
            new Thread(task) {
              @Override
              public synchronized void start() {
                throw new OutOfMemoryError(
                    "unable to create native thread: possibly out of memory");
              }
            };
    try (InPoolOrder<Integer> ready =
        new InPoolOrder<>(
            item -> {
              threads.add(Thread.currentThread().getName());
              return item.index();
            },
            handedOn::add,
            4,
            refusing)) {
      IntStream.range(0, 3 * InPoolOrder.BATCH + 5).forEach(i -> ready.accept(item(i)));
      ready.drain();
    }
    assertThat(handedOn)
        .containsExactlyElementsOf(IntStream.range(0, 3 * InPoolOrder.BATCH + 5).boxed().toList());
    assertThat(threads).containsOnly(Thread.currentThread().getName());
  }

  private static java.util.function.Function<Item, Integer> failingAt(int index) {
    return item -> {
      if (item.index() == index) {
        throw new IllegalStateException("item " + index + " does not read");
      }
      return item.index();
    };
  }
}
