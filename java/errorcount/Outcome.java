package errorcount;

/**
 * The classifier's answer for one record, packed in a long: {@code epochMinute * 16 + code}.
 * Decode with {@code packed >> 4} (an arithmetic shift: minutes before 1970 are negative) and
 * {@code packed & 15}. A rejected record carries minute 0. The reject codes are numbered in the
 * order the contracts check them (docs/contract.md); REASONS names them, the one list of them
 * (errorcount/pipeline/classify.py asks for it through ClassifyLine.rejectReasons).
 */
final class Outcome {
    static final int VALID = 0;
    static final int ERROR = 1;
    static final int NULL_VALUE = 2;
    static final int EMPTY_LINE = 3;
    static final int BAD_TIMESTAMP = 4;
    static final int BAD_LEVEL = 5;
    static final int IMPOSSIBLE_DATE = 6;
    static final int MINUTE_OUT_OF_RANGE = 7;
    static final int BAD_ACCESS_LINE = 8;
    static final int BAD_STATUS = 9;
    static final int BAD_JSON = 10;
    static final int BAD_MESSAGE = 11;
    static final int BAD_OTLP = 12;
    static final int CODE_BITS = 4;
    /** The reject reason of each code, as the dead-letter table stores it; VALID and ERROR have none. */
    static final String[] REASONS = {null, null, "null_value", "empty_line", "bad_timestamp", "bad_level",
        "impossible_date", "minute_out_of_range", "bad_access_line", "bad_status", "bad_json", "bad_message",
        "bad_otlp"};

    // 1000-01-01 00:00 and 9999-12-31 23:59 (the range of MySQL's DATETIME) as epoch minutes.
    static final long MIN_MINUTE = Calendar.epochDay(1000, 1, 1) * 1440;
    static final long MAX_MINUTE = Calendar.epochDay(9999, 12, 31) * 1440 + 23 * 60 + 59;

    private Outcome() {
    }

    static boolean isReject(long packed) {
        return (packed & 15) > ERROR;
    }

    static boolean isError(long packed) {
        return (packed & 15) == ERROR;
    }

    /** A line that is counted: valid or error (every other code is a reject). */
    static boolean isLine(long packed) {
        int code = (int) (packed & 15);
        return code == VALID || code == ERROR;
    }

    /** A counted minute (VALID or ERROR), or MINUTE_OUT_OF_RANGE outside MySQL's DATETIME range. */
    static long counted(long epochMinute, boolean error) {
        if (epochMinute < MIN_MINUTE || epochMinute > MAX_MINUTE) {
            return MINUTE_OUT_OF_RANGE;
        }
        return (epochMinute << CODE_BITS) | (error ? ERROR : VALID);
    }
}
