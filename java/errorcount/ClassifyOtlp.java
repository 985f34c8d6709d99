package errorcount;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.api.java.UDF1;

/**
 * The OTLP contract (docs/contract.md, "OTLP") on a Kafka record's value: one export request, one
 * outcome per log record, as a Spark Java UDF returning an array (RETURN_TYPE) of ClassifyLine's
 * struct, which the plan explodes (errorcount/pipeline/classify.py). A request that cannot be
 * decoded is one element, a bad_otlp reject; a request without log records is an empty array.
 *
 * <p>A log record's minute is its time, else its observed time (unsigned 64-bit nanoseconds since
 * the epoch, 0 meaning unknown), else it is a bad_timestamp reject. It is an ERROR when its
 * severity number is at least OTLP_ERROR_SEVERITY, or, with the number 0 (unspecified), when its
 * severity text is one of ERROR_LEVELS (ASCII case-insensitive). Deterministic, immutable once
 * built; no input can make it throw.
 */
public final class ClassifyOtlp implements UDF1<byte[], List<Row>> {
    private static final long serialVersionUID = 1L;
    public static final String RETURN_TYPE = "array<" + ClassifyLine.RETURN_TYPE + ">";
    private static final long NANOS_PER_MINUTE = 60_000_000_000L;
    // The severity numbers' level names, four numbers each (logs data model, "Field: SeverityNumber")
    private static final byte[][] LEVELS = names("TRACE", "DEBUG", "INFO", "WARN", "ERROR", "FATAL");

    private final Grouping grouping;
    private final OtlpProto.Wanted wanted;
    private final boolean everyLine;
    private final int errorSeverity;
    private final byte[][] errorLevels;
    private final String encoding;

    /** settings: as ClassifyLine's, LOG_FORMAT otlp. */
    public ClassifyOtlp(Map<String, String> settings) {
        Settings read = new Settings(settings);
        this.grouping = new Grouping(read);
        this.wanted = grouping.otlpWanted();
        this.everyLine = read.text("COUNT_LINES").equals("true");
        this.errorSeverity = read.number("OTLP_ERROR_SEVERITY");
        this.errorLevels = read.names("ERROR_LEVELS", true);
        this.encoding = read.text("OTLP_ENCODING");
    }

    /** RETURN_TYPE, for Python (py4j reads methods, not fields). */
    public static String returnType() {
        return RETURN_TYPE;
    }

    @Override
    public List<Row> call(byte[] value) {
        List<Row> outcomes = new ArrayList<>();
        if (value == null) {
            outcomes.add(RowFactory.create((long) Outcome.NULL_VALUE, null));
            return outcomes;
        }
        OtlpValues values = new OtlpValues(wanted.resource.length);
        OtlpProto.Sink sink = (time, observed, severity, text, textFrom, textTo, found) -> {
            long packed = outcome(time, observed, severity, text, textFrom, textTo);
            boolean labelled = !grouping.isEmpty() && (everyLine ? Outcome.isLine(packed) : Outcome.isError(packed));
            outcomes.add(RowFactory.create(packed, labelled
                    ? grouping.otlpSeries(level(severity, text, textFrom, textTo), text, textFrom, textTo, found) : null));
        };
        boolean json = encoding.equals("json") || encoding.equals("auto") && value.length > 0 && value[0] == '{';
        if (!(json ? OtlpJson.read(value, wanted, values, sink) : OtlpProto.read(value, wanted, values, sink))) {
            outcomes.clear();
            outcomes.add(RowFactory.create((long) Outcome.BAD_OTLP, null));
        }
        return outcomes;
    }

    private long outcome(long time, long observed, int severity, byte[] b, int textFrom, int textTo) {
        long nanos = time != 0 ? time : observed;
        if (nanos == 0) {
            return Outcome.BAD_TIMESTAMP;
        }
        boolean error = severity == 0 ? Bytes.isOneOf(b, textFrom, textTo - textFrom, errorLevels) : severity >= errorSeverity;
        return Outcome.counted(Long.divideUnsigned(nanos, NANOS_PER_MINUTE), error);
    }

    /** The level dimension: the severity number's name (1-24), the text upper-cased for 0, else the number. */
    static byte[] level(int severity, byte[] b, int textFrom, int textTo) {
        if (severity >= 1 && severity <= 24) {
            return LEVELS[(severity - 1) / 4];
        }
        if (severity != 0) {
            return Integer.toString(severity).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        byte[] text = java.util.Arrays.copyOfRange(b, textFrom, textTo);
        for (int i = 0; i < text.length; i++) {
            text[i] = (byte) Bytes.upper(text[i]);
        }
        return text;
    }

    private static byte[][] names(String... names) {
        byte[][] bytes = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            bytes[i] = names[i].getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        return bytes;
    }
}
