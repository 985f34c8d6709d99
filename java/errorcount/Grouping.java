package errorcount;

import java.nio.charset.StandardCharsets;

/**
 * GROUP_BY: the dimensions an ERROR record's series is made of (docs/contract.md, "Dimensions"),
 * in the order Python gives them (sorted, errorcount/dimensions.py). A series is its values joined
 * by SEPARATOR, a control character no value can hold (Label replaces them).
 *
 * <p>The line contracts report their own dimensions as raw bytes, indexed LEVEL, STATUS, METHOD and
 * TARGET (LineFormat.labels); {@code field:<name>} dimensions are read from the JSON event.
 */
final class Grouping implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    static final int LEVEL = 0, STATUS = 1, METHOD = 2, TARGET = 3, BUILTINS = 4;
    static final char SEPARATOR = '\u001f';
    private static final int PATH = 4, FIELD = 5;
    private static final String[] NAMES = {"level", "status", "method", null, "path"};

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
            if (name.startsWith("field:")) {
                kinds[i] = FIELD;
                fields[i] = name.substring(6).getBytes(StandardCharsets.UTF_8);
            } else {
                kinds[i] = java.util.Arrays.asList(NAMES).indexOf(name);
                if (kinds[i] < 0) {
                    throw new IllegalArgumentException("GROUP_BY names an unknown dimension '" + name + "'");
                }
            }
        }
        this.pathDepth = settings.number("PATH_DEPTH");
    }

    boolean isEmpty() {
        return kinds.length == 0;
    }

    /** Per dimension, the JSON field a {@code field:} one names (UTF-8), null for a builtin one. */
    byte[][] fieldNames() {
        return fields.clone();
    }

    /**
     * The series of an ERROR record: builtins from its line contract (null entries: absent); for
     * {@code field:} dimensions, the value positions in the JSON event `json` (JsonEvent), -1 absent.
     */
    String series(byte[][] builtins, byte[] json, int[] fieldValues) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < kinds.length; i++) {
            if (i > 0) {
                out.append(SEPARATOR);
            }
            if (kinds[i] == FIELD) {
                out.append(json == null ? "" : JsonEvent.fieldLabel(json, fieldValues[i]));
            } else if (kinds[i] == PATH) {
                out.append(path(builtins[TARGET], pathDepth));
            } else {
                out.append(Label.of(builtins[kinds[i]]));
            }
        }
        return out.toString();
    }

    /**
     * A request target as a path label: cut at '?' or '#'; a target starting with '/' becomes '/'
     * and its first `depth` non-empty segments joined by '/'; any other target is kept as cut.
     */
    static String path(byte[] target, int depth) {
        if (target == null) {
            return "";
        }
        int end = 0;
        while (end < target.length && target[end] != '?' && target[end] != '#') {
            end++;
        }
        if (end == 0 || target[0] != '/') {
            return Label.of(target, 0, end);
        }
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int segments = 0;
        for (int p = 0; p < end && segments < depth;) {
            while (p < end && target[p] == '/') {
                p++;
            }
            int q = p;
            while (q < end && target[q] != '/') {
                q++;
            }
            if (q > p) {
                out.write('/');
                out.write(target, p, q - p);
                segments++;
            }
            p = q;
        }
        byte[] path = out.size() == 0 ? new byte[] {'/'} : out.toByteArray();
        return Label.of(path, 0, path.length);
    }
}
