package errorcount;

import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;

/**
 * The log contracts (docs/contract.md) on a Kafka record's raw value bytes, as a Spark Java UDF
 * returning a struct (RETURN_TYPE): {@code packed}, the packed long of Outcome
 * ({@code epochMinute * 16 + code}), and {@code series}, a line's dimension values (GROUP_BY,
 * Grouping): every line's with COUNT_LINES, else an ERROR record's; null for a reject and without
 * GROUP_BY (a struct measured
 * cheaper than a second function: bench/RESULTS-output-shapes.md).
 *
 * <p>No regex, no String on the data path: one pass over the bytes. The grammars are ASCII, so
 * working on UTF-8 bytes gives what decoding with replacement would. Deterministic, immutable once
 * built; no input (null, empty, any size, depth or content) can make it throw.
 *
 * <p>Configuration comes in through the constructor, by setting name (an instance is registered
 * through the JVM, errorcount/pipeline/classify.py); validation and defaults are the settings' own, in Python.
 */
public final class ClassifyLine implements UDF1<byte[], Row> {
    private static final long serialVersionUID = 1L;
    /** The UDF's return type, in Spark's DDL (errorcount/pipeline/classify.py registers it with this type). */
    public static final String RETURN_TYPE = "struct<packed: bigint, series: string>";

    private final LineFormat line;  // app or access; null for json
    private final JsonEvent json;
    private final Grouping grouping;
    private final boolean everyLine;  // COUNT_LINES: every line has its series, not only ERROR lines

    /**
     * settings: the log-format settings by their names in errorcount/config/settings.py, as text, already
     * validated there (errorcount/pipeline/classify.py passes every one). LOG_FORMAT picks the contract;
     * MESSAGE_FORMAT the contract of a JSON event's wrapped line.
     */
    public ClassifyLine(Map<String, String> settings) {
        Settings read = new Settings(settings);
        String format = read.text("LOG_FORMAT");
        this.grouping = new Grouping(read);
        this.everyLine = read.text("COUNT_LINES").equals("true");
        if (format.equals("json")) {
            this.line = null;
            this.json = new JsonEvent(read, read.optional("JSON_MESSAGE_FIELD") == null ? null
                    : lineFormat(read.text("MESSAGE_FORMAT"), read), grouping.fieldNames());
        } else {
            this.line = lineFormat(format, read);
            this.json = null;
        }
    }

    private static LineFormat lineFormat(String format, Settings settings) {
        switch (format) {
            case "app": return new AppLine(settings);
            case "access": return new AccessLine(settings);
            default: throw new IllegalArgumentException("a line format '" + format + "' must be app or access");
        }
    }

    /** The reject reason of each outcome code (index), null for VALID and ERROR: Outcome.REASONS. */
    public static String[] rejectReasons() {
        return Outcome.REASONS.clone();
    }

    /** The two counted codes, {VALID, ERROR}: every other code is a reject. */
    public static int[] countedCodes() {
        return new int[] {Outcome.VALID, Outcome.ERROR};
    }

    /** How many low bits of the packed long hold the outcome code. */
    public static int codeBits() {
        return Outcome.CODE_BITS;
    }

    /** RETURN_TYPE, for Python (py4j reads methods, not fields). */
    public static String returnType() {
        return RETURN_TYPE;
    }

    @Override
    public Row call(byte[] value) {
        SeriesBuffer series = new SeriesBuffer();
        long packed = classify(value, new Labels(), series);
        return RowFactory.create(packed, labelled(packed) ? series.toUtf8String() : null);
    }

    /**
     * The packed outcome of `value` (null: NULL_VALUE); when the record is labelled (its series
     * wanted), its series is written into `series`. `labels` and `series` are the caller's, reused
     * record after record (OnePass: one each per task; call: one each per call).
     */
    long classify(byte[] value, Labels labels, SeriesBuffer series) {
        if (value == null) {
            return Outcome.NULL_VALUE;
        }
        Labels wanted = grouping.isEmpty() ? null : labels;
        if (line != null) {
            long packed = line.classifyValue(value, value.length, wanted);
            if (labelled(packed)) {
                grouping.series(labels, null, null, series);
            }
            return packed;
        }
        int[][] found = new int[1][];  // the event's field positions: read once for both
        long packed = json.classify(value, found, wanted);
        if (labelled(packed)) {
            json.series(value, found[0], grouping, labels, series);
        }
        return packed;
    }

    /** Whether the record of this outcome has a series: with GROUP_BY, every line with COUNT_LINES, else an error. */
    boolean labelled(long packed) {
        return !grouping.isEmpty() && (everyLine ? Outcome.isLine(packed) : Outcome.isError(packed));
    }
}
