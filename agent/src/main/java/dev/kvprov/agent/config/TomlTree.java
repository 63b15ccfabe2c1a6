package dev.kvprov.agent.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.toml.TomlFactory;
import dev.kvprov.agent.json.ParsedNodes;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A TOML text as a tree of Jackson's nodes, read with the TOML module's parser alone. A {@code
 * TomlMapper} gives the same tree, but its start (the whole data-binding machinery: some 300
 * classes of serializers, deserializers and type introspection) came first on every boot's path,
 * for a tree whose nodes the parser has already made. The nodes are those its {@code readTree}
 * makes: integers as int, long or big-integer nodes by size, floats as double nodes unless the
 * parser gives a big decimal or a float ({@code TomlTreeTest} compares both on every kind of
 * value).
 */
final class TomlTree {
  private static final TomlFactory FACTORY = new TomlFactory();

  private TomlTree() {}

  /** {@code text}'s tables and values; the parser's exception when it is not TOML. */
  static JsonNode read(String text) throws JacksonException {
    try (JsonParser parser = FACTORY.createParser(text)) {
      parser.nextToken();
      return ParsedNodes.of(parser);
    } catch (JacksonException e) {
      throw e;
    } catch (IOException e) {
      // a String has no I/O to fail; the parser's signature says it may
      throw new UncheckedIOException(e);
    }
  }
}
