package errorcount;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.spark.sql.api.java.UDF1;

/**
 * The log contracts (docs/contract.md) on a Kafka record's raw value bytes, as a Spark Java UDF
 * returning one packed long (Outcome: {@code epochMinute * 16 + code}).
 *
 * <p>No regex, no String on the data path: one pass over the bytes. The grammars are ASCII, so
 * working on UTF-8 bytes gives what decoding with replacement would. Deterministic, immutable once
 * built; no input (null, empty, any size, depth or content) can make it throw.
 *
 * <p>Configuration comes in through the constructor (an instance is registered through the JVM,
 * errorcount/parse.py), validated here too, so a bad setting fails at registration.
 */
public final class ClassifyLine implements UDF1<byte[], Long> {
    private static final long serialVersionUID = 1L;

    private final LineFormat line;  // app or access; null for json
    private final JsonEvent json;

    /** The app contract as written: level ERROR is an error. */
    public ClassifyLine() {
        this("ERROR");
    }

    /** The app contract with these comma-separated error levels (ASCII letters). */
    public ClassifyLine(String errorLevels) {
        this("app", errorLevels, 500, "", "", "", "auto", "", "app");
    }

    /**
     * format: app, access or json; errorLevels: comma-separated, compared ASCII case-insensitively;
     * statusMin: the lowest error status (access, json with statusField); timeFields, levelFields:
     * comma-separated candidate JSON fields; statusField, messageField: a JSON field or empty;
     * epochUnit: auto, s or ms; messageFormat: app or access, the contract of messageField's line.
     */
    public ClassifyLine(String format, String errorLevels, int statusMin, String timeFields, String levelFields,
                        String statusField, String epochUnit, String messageField, String messageFormat) {
        if (statusMin < 100 || statusMin > 599) {
            throw new IllegalArgumentException("the error status minimum " + statusMin + " must be 100 to 599");
        }
        boolean app = format.equals("app") || (format.equals("json") && !messageField.isEmpty() && messageFormat.equals("app"));
        byte[][] levels = levels(errorLevels, app);
        LineFormat message = lineFormat(messageFormat, levels, statusMin);
        if (format.equals("json")) {
            this.line = null;
            this.json = new JsonEvent(names(timeFields, "time"), names(levelFields, "level"), statusField, messageField,
                    message, levels, statusMin, unit(epochUnit));
        } else {
            this.line = lineFormat(format, levels, statusMin);
            this.json = null;
        }
    }

    private static LineFormat lineFormat(String format, byte[][] levels, int statusMin) {
        switch (format) {
            case "app": return new AppLine(levels);
            case "access": return new AccessLine(statusMin);
            case "json": return null;
            default: throw new IllegalArgumentException("format '" + format + "' must be app, access or json");
        }
    }

    private static byte[][] levels(String errorLevels, boolean lettersOnly) {
        String[] names = errorLevels.split(",", -1);
        byte[][] levels = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            String name = names[i].trim();
            if (name.isEmpty() || (lettersOnly && !name.chars().allMatch(c -> c < 128 && Bytes.isLetter((byte) c)))) {
                throw new IllegalArgumentException("error level " + (i + 1) + " of '" + errorLevels + "' must be one or more "
                        + (lettersOnly ? "ASCII letters" : "characters"));
            }
            levels[i] = upperAscii(name).getBytes(StandardCharsets.UTF_8);
        }
        return levels;
    }

    private static String upperAscii(String name) {
        StringBuilder upper = new StringBuilder(name.length());
        for (char c : name.toCharArray()) {
            upper.append(c >= 'a' && c <= 'z' ? (char) (c - 32) : c);
        }
        return upper.toString();
    }

    private static String[] names(String fields, String what) {
        String[] names = fields.split(",", -1);
        for (int i = 0; i < names.length; i++) {
            names[i] = names[i].trim();
            if (names[i].isEmpty()) {
                throw new IllegalArgumentException("JSON " + what + " field " + (i + 1) + " of '" + fields + "' is empty");
            }
        }
        return names;
    }

    private static int unit(String epochUnit) {
        switch (epochUnit.toLowerCase(Locale.ROOT)) {
            case "auto": return JsonEvent.AUTO;
            case "s": return JsonEvent.SECONDS;
            case "ms": return JsonEvent.MILLISECONDS;
            default: throw new IllegalArgumentException("epoch unit '" + epochUnit + "' must be auto, s or ms");
        }
    }

    @Override
    public Long call(byte[] value) {
        return classify(value);
    }

    /** The packed outcome of one value (null: NULL_VALUE). */
    public long classify(byte[] value) {
        if (value == null) {
            return Outcome.NULL_VALUE;
        }
        return line != null ? line.classifyValue(value, value.length) : json.classify(value);
    }
}
