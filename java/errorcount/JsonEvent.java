package errorcount;

/**
 * The {@code json} contract: the whole value one strict JSON object; its timestamp and level (or
 * status) read from the first candidate field present and not null, or, with a message field, the
 * original line in that string field classified by an inner line contract. Checked in order:
 * bad_json, bad_message (then the inner contract's reasons), bad_timestamp, bad_level or
 * bad_status, impossible_date, minute_out_of_range.
 */
final class JsonEvent implements java.io.Serializable {
    private static final long serialVersionUID = 1L;
    private static final int AUTO = 0, SECONDS = 1, MILLISECONDS = 2;
    private static final long MILLISECONDS_FROM = 100_000_000_000L;  // auto: |n| >= 1e11 is in ms
    private static final long TOO_LARGE = -1;
    private static final byte[] TRUE = {'t', 'r', 'u', 'e'}, FALSE = {'f', 'a', 'l', 's', 'e'};

    private final boolean byStatus;       // JSON_STATUS_FIELD set: the status decides, else the level
    private final boolean wrapped;        // JSON_MESSAGE_FIELD set: the line in it decides
    private final LineFormat message;     // the contract of the message field's line
    private final byte[][] errorLevels;   // upper-case
    private final int statusMin;
    private final int epochUnit;
    // Every field the event is read by, found in one pass (JsonFields), numbered: the time
    // candidates, the level candidates, the status, the message, then GROUP_BY's field dimensions.
    private final JsonFields fields;
    private final int levelFrom, levelTo, statusAt, messageAt;
    private final int[] groupFields;      // per GROUP_BY dimension: its field's number, -1 for a builtin

    /**
     * message: the contract of JSON_MESSAGE_FIELD's line (MESSAGE_FORMAT), when that field is set;
     * groupFields: per GROUP_BY dimension, the name of its JSON field, null for a builtin one.
     */
    JsonEvent(Settings settings, LineFormat message, byte[][] groupFields) {
        java.util.List<byte[]> names = new java.util.ArrayList<>(java.util.Arrays.asList(settings.names("JSON_TIME_FIELDS", false)));
        this.levelFrom = names.size();
        names.addAll(java.util.Arrays.asList(settings.names("JSON_LEVEL_FIELDS", false)));
        this.levelTo = names.size();
        this.statusAt = add(names, settings.optional("JSON_STATUS_FIELD"));
        this.messageAt = add(names, settings.optional("JSON_MESSAGE_FIELD"));
        this.groupFields = new int[groupFields.length];
        for (int i = 0; i < groupFields.length; i++) {
            this.groupFields[i] = add(names, groupFields[i]);
        }
        this.fields = new JsonFields(names);
        this.byStatus = statusAt >= 0;
        this.wrapped = messageAt >= 0;
        this.message = message;
        this.errorLevels = settings.names("ERROR_LEVELS", true);
        this.statusMin = settings.number("ERROR_STATUS_MIN");
        this.epochUnit = unit(settings.text("JSON_EPOCH_UNIT"));
    }

    /** Adds a field's name (null: none) and gives its number, or -1. */
    private static int add(java.util.List<byte[]> names, byte[] name) {
        if (name == null) {
            return -1;
        }
        names.add(name);
        return names.size() - 1;
    }

    private static int unit(String epochUnit) {
        switch (epochUnit) {
            case "auto": return AUTO;
            case "s": return SECONDS;
            case "ms": return MILLISECONDS;
            default: throw new IllegalArgumentException("JSON_EPOCH_UNIT '" + epochUnit + "' must be auto, s or ms");
        }
    }

    /**
     * The packed outcome of value b; for a valid object, `found` (of length 1) gets its fields'
     * positions (JsonFields.validScan), which `series` reads again.
     */
    long classify(byte[] b, int[][] found, Labels labels) {
        int start = Json.skipWhitespace(b, 0, b.length);
        if (start == b.length) {
            return Outcome.EMPTY_LINE;
        }
        int after = b[start] == '{' ? fields.validScan(b, start, found) : -1;  // valid, its fields found: one pass
        if (after < 0 || Json.skipWhitespace(b, after, b.length) != b.length) {
            return Outcome.BAD_JSON;
        }
        int[] at = found[0];
        if (wrapped) {
            int line = fields.at(b, at, messageAt);
            if (line < 0 || b[line] != '"') {
                return Outcome.BAD_MESSAGE;
            }
            byte[] text = Json.decode(b, line);
            return message.classifyValue(text, text.length, labels);  // the line's labels, when wanted
        }
        long dated = timestamp(b, firstPresent(b, at, 0, levelFrom));
        if (dated == Outcome.BAD_TIMESTAMP) {
            return dated;
        }
        if (labels != null) {
            labels.clear();
        }
        int error;
        if (byStatus) {
            int status = status(b, fields.at(b, at, statusAt));
            if (status < 100 || status > 599) {
                return Outcome.BAD_STATUS;
            }
            error = status >= statusMin ? 1 : 0;
        } else {
            error = level(b, firstPresent(b, at, levelFrom, levelTo), labels);
            if (error < 0) {
                return Outcome.BAD_LEVEL;
            }
        }
        return Outcome.isReject(dated) ? dated : dated | error;
    }

    /**
     * The series of an event `classify` counted, from the positions it found, written into `out`;
     * `labels` as classify left them (its level, or a wrapped line's labels, are set there).
     */
    void series(byte[] b, int[] at, Grouping grouping, Labels labels, SeriesBuffer out) {
        if (!wrapped && byStatus) {  // a level's label was set as classify read it
            labels.set(Grouping.STATUS, Integer.toString(status(b, fields.at(b, at, statusAt)))
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        }
        int[] values = new int[groupFields.length];
        for (int i = 0; i < values.length; i++) {
            values[i] = groupFields[i] < 0 ? -1 : fields.at(b, at, groupFields[i]);
        }
        grouping.series(labels, b, values, out);
    }

    /** A field's value at a position as a label, appended to a series: a string's text, a number as written, true or false; else "". */
    static void appendFieldLabel(SeriesBuffer out, byte[] b, int at) {
        if (at < 0) {
            return;
        }
        if (b[at] == '"') {
            int end = Json.plainStringEnd(b, at);  // no escape: the bytes as they are, as decode gives them
            if (end >= 0) {
                Label.append(out, b, at + 1, end);
            } else {
                Label.append(out, Json.decode(b, at));
            }
        } else if (b[at] == '-' || Bytes.isDigit(b[at])) {
            Label.append(out, b, at, Json.skip(b, at));
        } else if (b[at] == 't' || b[at] == 'f') {
            out.write(b[at] == 't' ? TRUE : FALSE);
        }
    }

    /** The value position of the first candidate field numbered [from, to) present and not null, or -1. */
    private int firstPresent(byte[] b, int[] found, int from, int to) {
        for (int f = from; f < to; f++) {
            int at = fields.at(b, found, f);
            if (at >= 0 && b[at] != 'n') {
                return at;
            }
        }
        return -1;
    }

    /** BAD_TIMESTAMP, or the deferred outcome of a valid one: IMPOSSIBLE_DATE, MINUTE_OUT_OF_RANGE or the minute. */
    private long timestamp(byte[] b, int at) {
        if (at < 0) {
            return Outcome.BAD_TIMESTAMP;
        }
        if (b[at] == '-' || Bytes.isDigit(b[at])) {
            return epoch(b, at, Json.skip(b, at));
        }
        if (b[at] != '"') {
            return Outcome.BAD_TIMESTAMP;
        }
        byte[] s = Json.decode(b, at);
        int[] t = new int[6];
        if (AppLine.timestamp(s, 0, s.length, t) == s.length) {
            return Calendar.outcome(t[0], t[1], t[2], t[3], t[4], t[5], false);
        }
        // A string of an optional sign, digits and an optional fraction.
        int p = s.length > 0 && (s[0] == '+' || s[0] == '-') ? 1 : 0;
        int q = Json.skipDigits(s, p, s.length);
        if (q > p && q < s.length && s[q] == '.') {
            int r = Json.skipDigits(s, q + 1, s.length);
            q = r > q + 1 ? r : -1;
        }
        return q > p && q == s.length ? epoch(s, 0, s.length) : Outcome.BAD_TIMESTAMP;
    }

    /** The packed minute of an epoch number b[p, end) (sign, digits, fraction, exponent), computed exactly. */
    private long epoch(byte[] b, int p, int end) {
        boolean negative = b[p] == '-';
        if (b[p] == '-' || b[p] == '+') {
            p++;
        }
        int intStart = p, intEnd = Json.skipDigits(b, p, end);
        int fracStart = intEnd < end && b[intEnd] == '.' ? intEnd + 1 : intEnd;
        int fracEnd = Json.skipDigits(b, fracStart, end);
        long exponent = 0;
        if (fracEnd < end && (b[fracEnd] == 'e' || b[fracEnd] == 'E')) {
            int q = fracEnd + 1;
            boolean down = b[q] == '-';
            q += b[q] == '-' || b[q] == '+' ? 1 : 0;
            for (; q < end; q++) {
                exponent = Math.min(exponent * 10 + (b[q] - '0'), 1L << 40);  // saturates: far past any minute
            }
            exponent = down ? -exponent : exponent;
        }
        // The digits d1..dn (integer then fraction) times 10^(exponent - fraction digits): the
        // decimal point falls after `point` of them.
        int intDigits = intEnd - intStart, n = intDigits + (fracEnd - fracStart);
        long point = intDigits + exponent;
        long whole = 0;
        boolean fraction = false;
        for (int i = 0; i < n; i++) {
            int digit = i < intDigits ? b[intStart + i] - '0' : b[fracStart + i - intDigits] - '0';
            if (i < point) {
                if (whole > 0 || digit > 0) {
                    if (whole >= 100_000_000_000_000_000L) {
                        return Outcome.MINUTE_OUT_OF_RANGE;
                    }
                    whole = whole * 10 + digit;
                }
            } else if (digit > 0) {
                fraction = true;
                break;
            }
        }
        for (long i = n; i < point && whole > 0; i++) {  // trailing zeros of a positive exponent
            if (whole >= 100_000_000_000_000_000L) {
                return Outcome.MINUTE_OUT_OF_RANGE;
            }
            whole *= 10;
        }
        long floor = negative ? -whole - (fraction ? 1 : 0) : whole;
        boolean milliseconds = epochUnit == MILLISECONDS || (epochUnit == AUTO && whole >= MILLISECONDS_FROM);
        return Outcome.counted(Math.floorDiv(floor, milliseconds ? 60_000 : 60), false);
    }

    /**
     * 1: an error level, 0: another level, -1: no level (missing, null, boolean, object, array).
     * The level's text is a number as written, or a string with blanks trimmed (a string without
     * escapes read in place); with `labels` (GROUP_BY), LEVEL is set to it ASCII upper-cased, as
     * read here once for both.
     */
    private int level(byte[] b, int at, Labels labels) {
        if (at < 0 || !(b[at] == '"' || b[at] == '-' || Bytes.isDigit(b[at]))) {
            return -1;
        }
        int plain = b[at] == '"' ? Json.plainStringEnd(b, at) : Json.skip(b, at);
        byte[] s = b[at] == '"' && plain < 0 ? Json.decode(b, at) : b;
        int start = s == b ? (b[at] == '"' ? at + 1 : at) : 0, end = s == b ? plain : s.length;
        while (start < end && Bytes.isBlank(s[start])) {
            start++;
        }
        while (end > start && Bytes.isBlank(s[end - 1])) {
            end--;
        }
        if (labels != null) {
            labels.setUpper(Grouping.LEVEL, s, start, end);
        }
        return Bytes.isOneOf(s, start, end - start, errorLevels) ? 1 : 0;
    }

    /** The status at a value position: a JSON integer or a string of ASCII digits; -1 when neither. */
    private static int status(byte[] b, int at) {
        if (at < 0) {
            return -1;
        }
        if (b[at] == '"') {
            byte[] s = Json.decode(b, at);
            return s.length > 0 && Json.skipDigits(s, 0, s.length) == s.length ? digitsValue(s, 0, s.length) : -1;
        }
        int end = Bytes.isDigit(b[at]) ? Json.skip(b, at) : -1;
        // Negative numbers, fractions, exponents, booleans, objects are no status.
        return end > at && Json.skipDigits(b, at, end) == end ? digitsValue(b, at, end) : -1;
    }

    /** The value of the digits b[p, end) when it has at most 3 significant digits, else -1. */
    private static int digitsValue(byte[] b, int p, int end) {
        while (p < end - 1 && b[p] == '0') {
            p++;
        }
        return end - p > 3 ? -1 : Bytes.number(b, p, end - p);
    }
}
