package errorcount;

/**
 * A counted line's builtin dimension values (Grouping.LEVEL, STATUS, METHOD, TARGET) as its
 * contract found them while classifying: each a span of some array (the record's bytes, a decoded
 * message, or this object's own copy of an upper-cased level), null when the contract has none.
 * Filled by LineFormat.classify and JsonEvent, read by Grouping.series before the next record:
 * one per caller, reused record after record, so no array is made per line.
 */
final class Labels {
    private final byte[][] arrays = new byte[Grouping.BUILTINS][];
    private final int[] from = new int[Grouping.BUILTINS], to = new int[Grouping.BUILTINS];
    private byte[] upper = new byte[16];

    void clear() {
        java.util.Arrays.fill(arrays, null);
    }

    void set(int kind, byte[] b, int start, int end) {
        arrays[kind] = b;
        from[kind] = start;
        to[kind] = end;
    }

    void set(int kind, byte[] b) {
        set(kind, b, 0, b == null ? 0 : b.length);
    }

    /** `kind` as b[start, end) with ASCII letters upper-cased, copied into this object. */
    void setUpper(int kind, byte[] b, int start, int end) {
        if (upper.length < end - start) {
            upper = new byte[end - start];
        }
        for (int i = start; i < end; i++) {
            upper[i - start] = (byte) Bytes.upper(b[i]);
        }
        set(kind, upper, 0, end - start);
    }

    /** The label of `kind` appended to a series (Label.append); nothing for a null one. */
    void append(SeriesBuffer out, int kind) {
        if (arrays[kind] != null) {
            Label.append(out, arrays[kind], from[kind], to[kind]);
        }
    }

    /** TARGET as a path label (Grouping.appendPath). */
    void appendPath(SeriesBuffer out, int depth) {
        if (arrays[Grouping.TARGET] != null) {
            Grouping.appendPath(out, arrays[Grouping.TARGET], from[Grouping.TARGET], to[Grouping.TARGET], depth);
        }
    }
}
