package dev.kvprov.inspect.pool;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
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
 * per line, concatenated, or as a JSON array of those strings (PowerShell's {@code ConvertTo-Json};
 * a bare JSON string for a one-item collection). Items come out in export order, which is the
 * pool's order, as entries with offset -1 (an export has no record slots). An item that cannot be
 * read is reported as a problem in its place, at its character offset in the decoded text (UTF-16
 * code units), and reading goes on with the next; only JSON broken beyond an item stops it.
 *
 * <p>Pure Java, no native calls: it runs on the Hyper-V host next to the export.
 */
public final class HostExport {
  /** A real item is at most a few KiB even fully escaped; anything longer is not an item. */
  static final int MAX_ITEM_CHARS = 64 * 1024;

  /**
   * The longest JSON string the parser holds. Jackson must read a string whole to learn its length,
   * so a longer-than-an-item element is reported and passed over only up to this bound (8 MiB of
   * chars, enough for any damage seen in practice: joined lines, a pasted log); a string beyond it
   * stops the array, as it would otherwise take memory without limit.
   */
  static final int MAX_JSON_STRING_CHARS = 4 * 1024 * 1024;

  private static final String CLASS_NAME = "Msvm_KvpExchangeDataItem";
  private static final String START = "<INSTANCE";
  private static final String END_TAG = "</INSTANCE>";
  private static final int SNIPPET_CHARS = 40;
  private static final XMLInputFactory XML = hardenedFactory();

  private final PoolVisitor visitor;
  private int index;

  private HostExport(PoolVisitor visitor) {
    this.visitor = visitor;
  }

  public static void scan(Reader in, PoolVisitor visitor) throws IOException {
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
    long skipped = 0;
    int c;
    while ((c = in.read()) == '\uFEFF' || (c >= 0 && Character.isWhitespace(c))) {
      skipped++;
    }
    if (c < 0) {
      return;
    }
    in.unread(c);
    if (c == '[' || c == '"' || c == '{') {
      readJson(in, skipped);
    } else {
      readInstances(in, skipped);
    }
  }

  /** JSON values one after another: arrays of items, or an item's string on its own. */
  private void readJson(Reader in, long base) throws IOException {
    JsonFactory factory =
        JsonFactory.builder()
            .streamReadConstraints(
                StreamReadConstraints.builder().maxStringLength(MAX_JSON_STRING_CHARS).build())
            .build();
    try (JsonParser json = factory.createParser(in)) {
      for (JsonToken t = json.nextToken(); t != null; t = json.nextToken()) {
        if (!(t == JsonToken.START_ARRAY ? readJsonArray(json, base) : element(json, t, base))) {
          return;
        }
      }
    } catch (JsonProcessingException e) {
      JsonLocation where = e.getLocation();
      problem(
          where == null || where.getCharOffset() < 0 ? -1 : base + where.getCharOffset(),
          "the JSON cannot be read further: " + oneLine(e.getOriginalMessage()));
    }
  }

  /** False when the JSON cannot be read further. */
  private boolean readJsonArray(JsonParser json, long base) throws IOException {
    // an array that ends early throws: Jackson never returns null inside one
    for (JsonToken t = json.nextToken(); t != JsonToken.END_ARRAY; t = json.nextToken()) {
      if (!element(json, t, base)) {
        return false;
      }
    }
    return true;
  }

  /** One array element or top-level value; false when the JSON cannot be read further. */
  private boolean element(JsonParser json, JsonToken t, long base) throws IOException {
    long at = base + json.currentTokenLocation().getCharOffset();
    if (t != JsonToken.VALUE_STRING) {
      problem(at, "a JSON " + kind(t) + " where an item's CIM-XML string should be");
      json.skipChildren();
      return true;
    }
    int length;
    try {
      length = json.getTextLength();
    } catch (StreamConstraintsException e) {
      // the parser stopped inside the string: nothing after it can be found again
      problem(
          at,
          "a JSON string longer than "
              + MAX_JSON_STRING_CHARS
              + " characters: the JSON cannot be read further");
      return false;
    }
    if (length > MAX_ITEM_CHARS) {
      problem(at, "the item is longer than " + MAX_ITEM_CHARS + " characters (" + length + ")");
    } else {
      instance(json.getText(), at);
    }
    return true;
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

  /**
   * Instances one after another, with or without line breaks between them. An item runs from an
   * {@code <INSTANCE} start tag to its {@code </INSTANCE>}; a start tag before that end means the
   * item was cut, and reading starts again at the tag. WMI escapes markup in values and writes no
   * CDATA, so such a tag in the text is always an item's own start. A prologue (an XML declaration,
   * a comment, a DOCTYPE) stays with the item it precedes, for the XML parser to judge. Memory is
   * one item at most: past {@link #MAX_ITEM_CHARS}, the text is counted but not kept up to the next
   * start tag.
   */
  private void readInstances(Reader in, long base) throws IOException {
    StringBuilder item = new StringBuilder();
    long offset = base; // of the character at hand
    long itemStart = base;
    boolean started = false; // item holds its own start tag
    int startMatched = 0; // how many characters of START end at the previous character
    boolean discarding = false;
    char[] buf = new char[8192];
    int n;
    while ((n = in.read(buf)) > 0) {
      for (int i = 0; i < n; i++, offset++) {
        char c = buf[i];
        boolean startTag = startMatched == START.length() && endsName(c);
        startMatched =
            startMatched < START.length() && c == START.charAt(startMatched)
                ? startMatched + 1
                : (c == '<' ? 1 : 0);
        if (discarding) {
          if (startTag) {
            discarding = false;
            started = true;
            item.append(START).append(c);
            itemStart = offset - START.length();
          }
          continue;
        }
        if (item.length() == 0) {
          if (Character.isWhitespace(c)) {
            continue;
          }
          itemStart = offset;
          started = false;
        }
        item.append(c);
        int tagAt = item.length() - START.length() - 1;
        if (startTag) {
          if (started || (tagAt > 0 && !isPrologue(item))) {
            notAnItem(
                item.subSequence(0, tagAt), itemStart, started, "before the next " + START + ">");
            item.delete(0, tagAt);
            itemStart = offset - START.length();
          }
          started = true;
        } else if (c == '>' && started && endsWith(item, END_TAG)) {
          instance(item.toString(), itemStart);
          item.setLength(0);
        } else if (item.length() > MAX_ITEM_CHARS) {
          // offsets stay exact: the discarded characters are still counted
          notAnItem(
              item,
              itemStart,
              started,
              "within "
                  + MAX_ITEM_CHARS
                  + " characters; passed over up to the next "
                  + START
                  + ">");
          item.setLength(0);
          discarding = true;
        }
      }
    }
    if (item.length() > 0) {
      notAnItem(item, itemStart, started, "before the export ends");
    }
  }

  /** Whether {@code c}, right after {@code <INSTANCE}, makes it that tag and not a longer name. */
  private static boolean endsName(char c) {
    return c == '>' || c == '/' || Character.isWhitespace(c);
  }

  private static boolean isPrologue(CharSequence text) {
    return text.length() > 1
        && text.charAt(0) == '<'
        && (text.charAt(1) == '?' || text.charAt(1) == '!');
  }

  /** Text that holds no whole item: the start of one cut short, or something else entirely. */
  private void notAnItem(CharSequence text, long at, boolean started, String where) {
    if (started) {
      problem(at, "the item is cut short: no " + END_TAG + " " + where);
    } else if (text.length() > MAX_ITEM_CHARS) {
      problem(
          at,
          "more than "
              + MAX_ITEM_CHARS
              + " characters that are not an "
              + START
              + "> item ("
              + snippet(text)
              + "); passed over up to the next "
              + START
              + ">");
    } else {
      problem(at, "text that is not an " + START + "> item: " + snippet(text));
    }
  }

  /** The start of {@code text}, quoted, to show what the text is without flooding the output. */
  private static String snippet(CharSequence text) {
    String trimmed = text.toString().strip();
    if (trimmed.length() <= SNIPPET_CHARS) {
      return '"' + oneLine(trimmed) + '"';
    }
    int end =
        Character.isHighSurrogate(trimmed.charAt(SNIPPET_CHARS - 1))
            ? SNIPPET_CHARS - 1
            : SNIPPET_CHARS;
    return '"' + oneLine(trimmed.substring(0, end)) + "…\"";
  }

  private static String oneLine(String s) {
    return s.replaceAll("\\s+", " ");
  }

  private static boolean endsWith(StringBuilder s, String suffix) {
    int from = s.length() - suffix.length();
    return from >= 0 && s.indexOf(suffix, from) == from;
  }

  /**
   * One item. Only a {@code <VALUE>} directly inside a {@code <PROPERTY NAME="Name">} or {@code
   * "Data"} counts: arrays, qualifiers and other properties are passed over, and names compare
   * without case, as CIM's do. {@code Source} (0 host-pushed, 1 guest, 2 intrinsic, 4 host-only) is
   * not looked at: every item is kept as the export has it.
   */
  private void instance(String xml, long offset) {
    String name = null;
    String data = "";
    int names = 0;
    int datas = 0;
    try {
      XMLStreamReader r = XML.createXMLStreamReader(new StringReader(xml));
      try {
        r.nextTag();
        if (!r.getLocalName().equals("INSTANCE")) {
          problem(offset, "an item is an <INSTANCE>; found <" + r.getLocalName() + ">");
          return;
        }
        // An instance of another class is the wrong export (a VM's, a component's), not damage to
        // read through: its Name is no KVP key, so it is reported, not read. A missing CLASSNAME
        // claims no other class and is read.
        String className = r.getAttributeValue(null, "CLASSNAME");
        if (className != null && !className.equalsIgnoreCase(CLASS_NAME)) {
          problem(offset, "an instance of " + snippet(className) + ", not " + CLASS_NAME);
          return;
        }
        String property = null; // the NAME of the <PROPERTY> open directly inside <INSTANCE>
        int depth = 1;
        while (r.hasNext()) {
          int event = r.next();
          if (event == XMLStreamConstants.START_ELEMENT) {
            depth++;
            if (depth == 2) {
              property =
                  r.getLocalName().equals("PROPERTY") ? r.getAttributeValue(null, "NAME") : null;
            } else if (depth == 3 && property != null && r.getLocalName().equals("VALUE")) {
              String text = r.getElementText(); // reads through </VALUE>
              depth--;
              if (property.equalsIgnoreCase("Name")) {
                name = text;
                names++;
              } else if (property.equalsIgnoreCase("Data")) {
                data = text;
                datas++;
              }
            }
          } else if (event == XMLStreamConstants.END_ELEMENT && --depth == 1) {
            property = null;
          }
        }
      } finally {
        r.close();
      }
    } catch (XMLStreamException e) {
      problem(offset, "the item is not well-formed CIM-XML: " + oneLine(e.getMessage()));
      return;
    }
    if (names > 1 || datas > 1) {
      // the DTD allows one VALUE per PROPERTY: which one is the pool's is a guess not to make
      problem(
          offset,
          (names > 1 ? "the Name property has " + names : "the Data property has " + datas)
              + " values; an item has one");
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
