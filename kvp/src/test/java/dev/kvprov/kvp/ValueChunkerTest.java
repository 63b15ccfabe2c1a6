package dev.kvprov.kvp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ValueChunkerTest {

  @Test
  void split_neverCutsInsideACharacter() {
    // 'é' is 2 bytes: a cut at 5 bytes must fall before the third 'é', not inside it.
    assertThat(ValueChunker.split("aéééé", 5)).containsExactly("aéé", "éé");
    // An emoji is 4 bytes (two UTF-16 units) and moves whole to the next piece.
    assertThat(ValueChunker.split("abc😀", 4)).containsExactly("abc", "😀");
  }

  @Test
  void split_hostSafe_fillsPiecesTo1022Bytes() {
    String value = "x".repeat(3000);

    assertThat(ValueChunker.split(value, KvpLimits.HOST_SAFE))
        .extracting(String::length)
        .containsExactly(1022, 1022, 956);
  }

  @Test
  void split_emptyValue_isOneEmptyPiece() {
    assertThat(ValueChunker.split("", 100)).containsExactly("");
  }

  @Test
  void split_rejectsUnencodableInput() {
    assertThatThrownBy(() -> ValueChunker.split("a\uD83D", 10))
        .hasMessageContaining("unpaired surrogate at index 1");
    assertThatThrownBy(() -> ValueChunker.split("abc", 3)).hasMessageContaining("at least 4");
  }
}
