package dev.kvprov.inspect;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import dev.kvprov.kvp.KvpProblem;
import dev.kvprov.kvp.KvpRecord;
import dev.kvprov.kvp.PoolEntry;
import dev.kvprov.kvp.PoolVisitor;
import java.io.IOException;
import java.io.PushbackReader;
import java.io.Reader;
import java.io.StringReader;
import javax.xml.XMLConstants;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * Reads a host-side export of a pool: {@code Msvm_KvpExchangeDataItem} instances in CIM-XML, one
 * per line, concatenated, or as a JSON array of those strings (PowerShell's {@code
 * ConvertTo-Json}). Items come out in export order, which is the pool's order, as entries with
 * offset -1 (an export has no record slots). An item that cannot be read is reported as a problem
 * and reading goes on with the next; only JSON broken beyond an item stops it.
 *
 * <p>Pure Java, no native calls: it runs on the Hyper-V host next to the export.
 */
final class HostExport {
  /** A real item is at most a few KiB even fully escaped; anything longer is not an item. */
  static final int MAX_ITEM_CHARS = 64 * 1024;

  private static final String END_TAG = "</INSTANCE>";
  private static final XMLInputFactory XML = hardenedFactory();

  private final PoolVisitor visitor;
  private int index;

  private HostExport(PoolVisitor visitor) {
    this.visitor = visitor;
  }

  static void scan(Reader in, PoolVisitor visitor) throws IOException {
    new HostExport(visitor).read(in);
  }

  private static XMLInputFactory hardenedFactory() {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    // The export is untrusted: no DTDs, no entities beyond XML's five.
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    factory.setProperty(XMLInputFactory.IS_COALESCING, true);
    try {
      factory.setProperty(XMLConstants.ACCESS_EXTERNAL_DTD, "");
    } catch (IllegalArgumentException e) {
      // a parser without the JAXP 1.5 property already has no way to reach out
    }
    return factory;
  }

  private void read(Reader reader) throws IOException {
    PushbackReader in = new PushbackReader(reader, 1);
    int c;
    do {
      c = in.read();
    } while (c == '\uFEFF' || (c >= 0 && Character.isWhitespace(c)));
    if (c < 0) {
      return;
    }
    in.unread(c);
    if (c == '[') {
      readJsonArray(in);
    } else {
      readInstances(in);
    }
  }

  private void readJsonArray(Reader in) throws IOException {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxStringLength(MAX_ITEM_CHARS).build())
            .build();
    try (JsonParser json = factory.createParser(in)) {
      json.nextToken();
      for (JsonToken t = json.nextToken(); t != JsonToken.END_ARRAY; t = json.nextToken()) {
        long at = json.currentTokenLocation().getCharOffset();
        if (t == null) {
          problem(at, "the JSON array ends without ]");
          return;
        }
        if (t == JsonToken.VALUE_STRING) {
          instance(json.getText(), at);
        } else {
          problem(at, "a JSON " + kind(t) + " where an item's CIM-XML string should be");
          json.skipChildren();
        }
      }
    } catch (JsonProcessingException e) {
      problem(
          e.getLocation() == null ? -1 : e.getLocation().getCharOffset(),
          "the JSON cannot be read further: " + e.getOriginalMessage());
    }
  }

  private static String kind(JsonToken t) {
    return switch (t) {
      case START_OBJECT -> "object";
      case START_ARRAY -> "array";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "number";
      case VALUE_TRUE, VALUE_FALSE -> "boolean";
      case VALUE_NULL -> "null";
      default -> t.name();
    };
  }

  /** Instances one after another, with or without line breaks between them. */
  private void readInstances(Reader in) throws IOException {
    StringBuilder item = new StringBuilder();
    long offset = 0;
    long itemStart = 0;
    char[] buf = new char[8192];
    int n;
    while ((n = in.read(buf)) > 0) {
      for (int i = 0; i < n; i++) {
        if (item.length() == 0 && Character.isWhitespace(buf[i])) {
          offset++;
          itemStart = offset;
          continue;
        }
        item.append(buf[i]);
        offset++;
        if (buf[i] == '>' && endsWith(item, END_TAG)) {
          instance(item.toString(), itemStart);
          item.setLength(0);
          itemStart = offset;
        } else if (item.length() > MAX_ITEM_CHARS) {
          problem(itemStart, "no " + END_TAG + " within " + MAX_ITEM_CHARS + " characters");
          skipPast(in, END_TAG);
          item.setLength(0);
          // offsets after a skipped item are no longer exact; say so rather than mislead
          offset = itemStart = -1;
        }
      }
    }
    if (!item.toString().isBlank()) {
      problem(itemStart, "the export ends inside an item (no " + END_TAG + ")");
    }
  }

  private static boolean endsWith(StringBuilder s, String suffix) {
    int from = s.length() - suffix.length();
    return from >= 0 && s.indexOf(suffix, from) == from;
  }

  private static void skipPast(Reader in, String marker) throws IOException {
    int matched = 0;
    int c;
    while (matched < marker.length() && (c = in.read()) >= 0) {
      matched = c == marker.charAt(matched) ? matched + 1 : (c == marker.charAt(0) ? 1 : 0);
    }
  }

  private void instance(String xml, long offset) {
    String name = null;
    String data = "";
    try {
      XMLStreamReader r = XML.createXMLStreamReader(new StringReader(xml));
      try {
        r.nextTag();
        if (!r.getLocalName().equals("INSTANCE")) {
          problem(offset, "an item is an <INSTANCE>; found <" + r.getLocalName() + ">");
          return;
        }
        String property = null;
        while (r.hasNext()) {
          int event = r.next();
          if (event == XMLStreamConstants.START_ELEMENT && r.getLocalName().equals("PROPERTY")) {
            property = r.getAttributeValue(null, "NAME");
          } else if (event == XMLStreamConstants.START_ELEMENT
              && r.getLocalName().equals("VALUE")) {
            String text = r.getElementText();
            if ("Name".equals(property)) {
              name = text;
            } else if ("Data".equals(property)) {
              data = text;
            }
          }
        }
      } finally {
        r.close();
      }
    } catch (XMLStreamException e) {
      problem(offset, "the item is not well-formed CIM-XML: " + e.getMessage());
      return;
    }
    if (name == null) {
      problem(offset, "the item has no Name property (its key)");
      return;
    }
    visitor.entry(new PoolEntry(index++, -1, new KvpRecord(name, data), true));
  }

  /** A problem takes the slot of the item it concerns, so later indexes stay in export order. */
  private void problem(long offset, String detail) {
    visitor.problem(
        new KvpProblem(
            offset,
            index++,
            KvpProblem.Kind.EXPORT_ITEM_INVALID,
            "item " + (index - 1) + ": " + detail));
  }
}
