package errorcount;

import org.apache.spark.sql.api.java.UDF1;

/**
 * The log-line contract (docs/contract.md) on a Kafka record's raw value bytes, as a Spark Java
 * UDF returning one packed long: {@code epochMinute * 16 + outcome}. Decode with
 * {@code packed >> 4} (an arithmetic shift: minutes before 1970 are negative) and
 * {@code packed & 15}. Rejected values carry minute 0.
 *
 * <p>No regex, no String, no allocation: one pass over the first line's bytes. The grammar is
 * ASCII, so working on UTF-8 bytes gives what decoding with replacement would (a byte that is not
 * ASCII is never part of a valid line, and never a newline). Deterministic, immutable once built;
 * no input (null, empty, any size or content) can make it throw.
 *
 * <p>Configuration comes in through the constructor (an instance is registered through the JVM,
 * errorcount/parse.py): the levels that count as errors, ASCII letters compared case-insensitively.
 */
public final class ClassifyLine implements UDF1<byte[], Long> {
    private static final long serialVersionUID = 1L;

    // Outcome codes (4 bits: room for 16). The order of the rejects is the order they are checked.
    public static final int VALID = 0;
    public static final int ERROR = 1;
    public static final int NULL_VALUE = 2;
    public static final int EMPTY_LINE = 3;
    public static final int BAD_TIMESTAMP = 4;
    public static final int BAD_LEVEL = 5;
    public static final int IMPOSSIBLE_DATE = 6;
    public static final int MINUTE_OUT_OF_RANGE = 7;
    public static final int CODE_BITS = 4;

    // 1000-01-01 00:00 and 9999-12-31 23:59 (MySQL DATETIME) as epoch minutes.
    static final long MIN_MINUTE = epochDay(1000, 1, 1) * 1440;
    static final long MAX_MINUTE = epochDay(9999, 12, 31) * 1440 + 23 * 60 + 59;

    private final byte[][] errorLevels;  // upper-case ASCII letters

    /** The contract as written: level ERROR is an error. */
    public ClassifyLine() {
        this("ERROR");
    }

    /** errorLevels: comma-separated level names (ASCII letters) that count as errors. */
    public ClassifyLine(String errorLevels) {
        String[] names = errorLevels.split(",", -1);
        this.errorLevels = new byte[names.length][];
        for (int i = 0; i < names.length; i++) {
            String name = names[i].trim();
            if (name.isEmpty() || !name.chars().allMatch(c -> (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'))) {
                throw new IllegalArgumentException("error level " + (i + 1) + " of '" + errorLevels
                        + "' must be one or more ASCII letters");
            }
            this.errorLevels[i] = name.toUpperCase(java.util.Locale.ROOT).getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
    }

    @Override
    public Long call(byte[] value) {
        return classify(value);
    }

    /** The packed outcome of one value (null: NULL_VALUE). */
    public long classify(byte[] value) {
        if (value == null) {
            return NULL_VALUE;
        }
        int end = 0;
        while (end < value.length && value[end] != '\n') {
            end++;
        }
        if (end > 0 && value[end - 1] == '\r') {
            end--;  // one CR before the newline (or at the very end) belongs to the line break
        }
        int start = 0;
        while (start < end && isBlank(value[start])) {
            start++;
        }
        while (end > start && isBlank(value[end - 1])) {
            end--;
        }
        if (start == end) {
            return EMPTY_LINE;
        }
        return classifyLine(value, start, end);
    }

    /** The contract on a non-empty line value[start, end): trimmed, first line only. */
    private long classifyLine(byte[] b, int start, int end) {
        int p = start;
        // YYYY-MM-DD{ |T}HH:MM:SS
        if (end - p < 19 || !digits(b, p, 4) || b[p + 4] != '-' || !digits(b, p + 5, 2) || b[p + 7] != '-'
                || !digits(b, p + 8, 2) || (b[p + 10] != ' ' && b[p + 10] != 'T') || !digits(b, p + 11, 2)
                || b[p + 13] != ':' || !digits(b, p + 14, 2) || b[p + 16] != ':' || !digits(b, p + 17, 2)) {
            return BAD_TIMESTAMP;
        }
        int year = number(b, p, 4), month = number(b, p + 5, 2), day = number(b, p + 8, 2);
        int hour = number(b, p + 11, 2), minute = number(b, p + 14, 2), second = number(b, p + 17, 2);
        if (hour > 23 || minute > 59 || second > 59) {
            return BAD_TIMESTAMP;
        }
        p += 19;
        if (p < end && (b[p] == '.' || b[p] == ',')) {  // a fraction of 1 to 9 digits
            int digits = 0;
            while (p + 1 + digits < end && isDigit(b[p + 1 + digits])) {
                digits++;
            }
            if (digits < 1 || digits > 9) {
                return BAD_TIMESTAMP;
            }
            p += 1 + digits;
        }
        int offset = 0;
        if (p < end && b[p] == 'Z') {
            p++;
        } else if (p < end && (b[p] == '+' || b[p] == '-')) {  // +HH:MM or +HHMM, hours 00-14
            int sign = b[p] == '-' ? -1 : 1;
            int q = p + 1;
            if (!(q + 2 <= end && digits(b, q, 2))) {
                return BAD_TIMESTAMP;
            }
            int zoneHours = number(b, q, 2);
            q += 2;
            if (q < end && b[q] == ':') {
                q++;
            }
            if (zoneHours > 14 || !(q + 2 <= end && digits(b, q, 2)) || number(b, q, 2) > 59) {
                return BAD_TIMESTAMP;
            }
            offset = sign * (zoneHours * 60 + number(b, q, 2));
            p = q + 2;
        }
        // The timestamp ends at a blank or at the end of the line; else it is no timestamp.
        if (p < end && !isBlank(b[p])) {
            return BAD_TIMESTAMP;
        }
        if (p == end) {
            return BAD_LEVEL;
        }
        while (p < end && isBlank(b[p])) {
            p++;
        }
        // LEVEL: letters, or letters in brackets; then an optional ':'; then a blank or the end.
        boolean bracketed = p < end && b[p] == '[';
        int levelStart = bracketed ? p + 1 : p;
        int q = levelStart;
        while (q < end && isLetter(b[q])) {
            q++;
        }
        int letters = q - levelStart;
        if (letters == 0 || (bracketed && !(q < end && b[q] == ']'))) {
            return BAD_LEVEL;
        }
        int afterLevel = bracketed ? q + 1 : q;
        if (afterLevel < end && b[afterLevel] == ':') {
            afterLevel++;
        }
        if (afterLevel < end && !isBlank(b[afterLevel])) {
            return BAD_LEVEL;
        }
        if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
            return IMPOSSIBLE_DATE;
        }
        if (year < 1) {
            return MINUTE_OUT_OF_RANGE;
        }
        long epochMinute = epochDay(year, month, day) * 1440 + hour * 60 + minute - offset;
        if (epochMinute < MIN_MINUTE || epochMinute > MAX_MINUTE) {
            return MINUTE_OUT_OF_RANGE;
        }
        return (epochMinute << CODE_BITS) | (isError(b, levelStart, letters) ? ERROR : VALID);
    }

    private boolean isError(byte[] b, int at, int letters) {
        for (byte[] level : errorLevels) {
            if (level.length == letters && sameLetters(b, at, level)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameLetters(byte[] b, int at, byte[] upperLevel) {
        for (int i = 0; i < upperLevel.length; i++) {
            if (upper(b[at + i]) != upperLevel[i]) {
                return false;
            }
        }
        return true;
    }

    private static int upper(byte c) {
        return c >= 'a' && c <= 'z' ? c - 32 : c;
    }

    private static boolean isBlank(byte c) {
        return c == ' ' || c == '\t';
    }

    private static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static boolean isLetter(byte c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    private static boolean digits(byte[] b, int at, int count) {
        for (int i = at; i < at + count; i++) {
            if (!isDigit(b[i])) {
                return false;
            }
        }
        return true;
    }

    private static int number(byte[] b, int at, int count) {
        int n = 0;
        for (int i = at; i < at + count; i++) {
            n = n * 10 + (b[i] - '0');
        }
        return n;
    }

    private static int daysInMonth(int year, int month) {
        boolean leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        switch (month) {
            case 2: return leap ? 29 : 28;
            case 4: case 6: case 9: case 11: return 30;
            default: return 31;
        }
    }

    /** Days since 1970-01-01 of a proleptic Gregorian date (days from civil, 400-year eras). */
    static long epochDay(long year, int month, int day) {
        long y = month <= 2 ? year - 1 : year;
        long era = Math.floorDiv(y, 400);
        long yearOfEra = y - era * 400;
        long dayOfYear = (153L * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
        long dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear;
        return era * 146097 + dayOfEra - 719468;
    }
}
