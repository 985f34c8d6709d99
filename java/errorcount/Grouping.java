package errorcount;

import java.nio.charset.StandardCharsets;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * GROUP_BY: the dimensions an ERROR record's series is made of (docs/contract.md, "Dimensions"),
 * in the order Python gives them (sorted, errorcount/config/dimensions.py). A series is its values joined
 * by SEPARATOR, a control character no value can hold (Label replaces them), as UTF-8 bytes.
 *
 * <p>The line contracts report their own dimensions as raw bytes, indexed LEVEL, STATUS, METHOD and
 * TARGET (LineFormat.labels); {@code field:<name>} dimensions are read from the JSON event.
 */
final class Grouping implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    static final int LEVEL = 0, STATUS = 1, METHOD = 2, TARGET = 3, BUILTINS = 4;
    static final char SEPARATOR = '\u001f';
    private static final int PATH = 4, FIELD = 5, RESOURCE = 6, SCOPE_NAME = 7, ATTRIBUTE = 8, SEVERITY = 9;
    private static final String[] NAMES = {"level", "status", "method", null, "path", null, null, "scope:name", null, "severity"};
    private static final String[] PREFIXES = {null, null, null, null, null, "field:", "resource:", null, "attr:", null};

    private final int[] kinds;
    private final byte[][] fields;  // the field name of a FIELD dimension
    private final int pathDepth;

    Grouping(Settings settings) {
        String spec = settings.text("GROUP_BY").trim();
        String[] names = spec.isEmpty() ? new String[0] : spec.split(",", -1);
        this.kinds = new int[names.length];
        this.fields = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            String name = names[i].trim();
            int prefixed = prefixed(name);
            if (prefixed >= 0) {
                kinds[i] = prefixed;
                fields[i] = name.substring(PREFIXES[prefixed].length()).getBytes(StandardCharsets.UTF_8);
            } else {
                kinds[i] = java.util.Arrays.asList(NAMES).indexOf(name);
                if (kinds[i] < 0) {
                    throw new IllegalArgumentException("GROUP_BY names an unknown dimension '" + name + "'");
                }
            }
        }
        this.pathDepth = settings.number("PATH_DEPTH");
    }

    private static int prefixed(String name) {
        for (int kind = 0; kind < PREFIXES.length; kind++) {
            if (PREFIXES[kind] != null && name.startsWith(PREFIXES[kind])) {
                return kind;
            }
        }
        return -1;
    }

    boolean isEmpty() {
        return kinds.length == 0;
    }

    /** Per dimension, the JSON field a {@code field:} one names (UTF-8), null for any other. */
    byte[][] fieldNames() {
        return named(FIELD);
    }

    /** What an OTLP request is read for: the resource: and attr: keys, the index of scope:name. */
    OtlpProto.Wanted otlpWanted() {
        int scopeName = -1;
        for (int i = 0; i < kinds.length; i++) {
            scopeName = kinds[i] == SCOPE_NAME ? i : scopeName;
        }
        return new OtlpProto.Wanted(named(RESOURCE), named(ATTRIBUTE), scopeName);
    }

    /** Per dimension, the name after the prefix of a dimension of `kind`, null for any other. */
    private byte[][] named(int kind) {
        byte[][] names = new byte[kinds.length][];
        for (int i = 0; i < kinds.length; i++) {
            names[i] = kinds[i] == kind ? fields[i] : null;
        }
        return names;
    }

    /**
     * The series of an OTLP log record: `level` (its severity's level name), its severity text
     * b[textFrom, textTo), and the resource:, scope:name and attr: values read (OtlpValues).
     */
    UTF8String otlpSeries(byte[] level, byte[] b, int textFrom, int textTo, OtlpValues values) {
        SeriesBuffer out = new SeriesBuffer();
        for (int i = 0; i < kinds.length; i++) {
            if (i > 0) {
                out.write((byte) SEPARATOR);
            }
            if (kinds[i] == LEVEL) {
                Label.append(out, level);
            } else if (kinds[i] == SEVERITY) {
                Label.append(out, b, textFrom, textTo);
            } else {
                values.appendLabel(out, i);  // resource:, scope:name, attr: (Python offers no other for otlp)
            }
        }
        return out.toUtf8String();
    }

    /**
     * The series of a counted record, written into `out` (emptied first): builtins as its contract
     * set them in `labels`; for {@code field:} dimensions, the value positions in the JSON event
     * `json` (JsonEvent), -1 absent.
     */
    void series(Labels labels, byte[] json, int[] fieldValues, SeriesBuffer out) {
        out.reset();
        for (int i = 0; i < kinds.length; i++) {
            if (i > 0) {
                out.write((byte) SEPARATOR);
            }
            if (kinds[i] == FIELD) {
                if (json != null) {
                    JsonEvent.appendFieldLabel(out, json, fieldValues[i]);
                }
            } else if (kinds[i] == PATH) {
                labels.appendPath(out, pathDepth);
            } else {
                labels.append(out, kinds[i]);
            }
        }
    }

    /**
     * A request target b[from, to) as a path label: cut at '?' or '#'; a target starting with '/'
     * becomes '/' and its first `depth` non-empty segments joined by '/'; any other target is kept
     * as cut. Written straight into `out`, then made a label there (Label.append's rule).
     */
    static void appendPath(SeriesBuffer out, byte[] b, int from, int to, int depth) {
        int end = from;
        while (end < to && b[end] != '?' && b[end] != '#') {
            end++;
        }
        if (end == from || b[from] != '/') {
            Label.append(out, b, from, end);
            return;
        }
        int mark = out.size(), segments = 0;
        for (int p = from; p < end && segments < depth;) {
            while (p < end && b[p] == '/') {
                p++;
            }
            int q = p;
            while (q < end && b[q] != '/') {
                q++;
            }
            if (q > p) {
                out.write((byte) '/');
                out.write(b, p, q);
                segments++;
            }
            p = q;
        }
        if (out.size() == mark) {
            out.write((byte) '/');
        }
        out.label(mark);
    }
}
