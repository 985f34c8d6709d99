package errorcount;

import java.nio.charset.StandardCharsets;

/**
 * The values of GROUP_BY's OTLP dimensions (resource:, scope:name, attr:) for the log record being
 * read, by dimension index: filled as a request is walked (a resource's values for all its
 * records, a record's attributes for that record) and read by Grouping.otlpSeries. An attribute's
 * value is its AnyValue as a label: a string as written, an integer in decimal, a bool as true or
 * false, any other kind (double, bytes, array, map, none) empty. The first attribute with a key
 * wins, as the Collector's own attribute maps read it. Made per call; never shared.
 */
final class OtlpValues {
    static final int UNSET = 0, EMPTY = 1, TEXT = 2, NUMBER = 3, TRUE = 4, FALSE = 5;
    private static final byte[] TRUE_TEXT = "true".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] FALSE_TEXT = "false".getBytes(StandardCharsets.US_ASCII);

    private final int[] kind;
    private final byte[][] source;
    private final int[] from;
    private final int[] to;
    private final long[] number;

    OtlpValues(int dimensions) {
        kind = new int[dimensions];
        source = new byte[dimensions][];
        from = new int[dimensions];
        to = new int[dimensions];
        number = new long[dimensions];
    }

    boolean isSet(int i) {
        return kind[i] != UNSET;
    }

    void clear(int i) {
        kind[i] = UNSET;
        source[i] = null;
    }

    /** Dimension i's value: `valueKind` with text b[start, end) (TEXT) or `n` (NUMBER). */
    void set(int i, int valueKind, byte[] b, int start, int end, long n) {
        kind[i] = valueKind;
        source[i] = b;
        from[i] = start;
        to[i] = end;
        number[i] = n;
    }

    /** Dimension i's label appended (Label's normalisation); nothing for a missing or empty value. */
    void appendLabel(SeriesBuffer out, int i) {
        switch (kind[i]) {
            case TEXT:
                Label.append(out, source[i], from[i], to[i]);
                break;
            case NUMBER:
                out.write(Long.toString(number[i]).getBytes(StandardCharsets.US_ASCII));
                break;
            case TRUE:
                out.write(TRUE_TEXT);
                break;
            case FALSE:
                out.write(FALSE_TEXT);
                break;
            default:
                break;
        }
    }
}
