package errorcount;

/**
 * The {@code app} contract on one trimmed, non-empty line b[start, end):
 * {@code TIMESTAMP <blanks> LEVEL[:] [<blank> message]}, LEVEL letters or letters in brackets.
 * Also the timestamp grammar alone, which the {@code json} contract reuses for string timestamps.
 */
final class AppLine implements LineFormat {
    private static final long serialVersionUID = 1L;

    private final byte[][] errorLevels;  // upper-case ASCII letters

    AppLine(Settings settings) {
        this.errorLevels = settings.names("ERROR_LEVELS", true);
    }

    @Override
    public long classify(byte[] b, int start, int end, Labels labels) {
        int[] t = new int[6];
        int p = timestamp(b, start, end, t);
        // The timestamp ends at a blank or at the end of the line; else it is no timestamp.
        if (p < 0 || (p < end && !Bytes.isBlank(b[p]))) {
            return Outcome.BAD_TIMESTAMP;
        }
        long level = level(b, p, end);
        if (level < 0) {
            return Outcome.BAD_LEVEL;
        }
        if (labels != null) {  // LEVEL: the letters, upper-cased (they matched ERROR_LEVELS when the line is an error)
            labels.clear();
            labels.setUpper(Grouping.LEVEL, b, (int) (level >>> 32), (int) (level >>> 32) + (int) level);
        }
        return Calendar.outcome(t[0], t[1], t[2], t[3], t[4], t[5],
                Bytes.isOneOf(b, (int) (level >>> 32), (int) level, errorLevels));
    }

    /**
     * After the timestamp (at p): blanks, then LEVEL as letters or letters in brackets, an optional
     * ':', then a blank or the end. The letters as {@code start << 32 | count}, or -1 (BAD_LEVEL).
     */
    private static long level(byte[] b, int p, int end) {
        if (p == end) {
            return -1;
        }
        while (p < end && Bytes.isBlank(b[p])) {
            p++;
        }
        boolean bracketed = b[p] == '[';
        int levelStart = bracketed ? p + 1 : p;
        int q = levelStart;
        while (q < end && Bytes.isLetter(b[q])) {
            q++;
        }
        int letters = q - levelStart;
        if (letters == 0 || (bracketed && !(q < end && b[q] == ']'))) {
            return -1;
        }
        int afterLevel = bracketed ? q + 1 : q;
        if (afterLevel < end && b[afterLevel] == ':') {
            afterLevel++;
        }
        if (afterLevel < end && !Bytes.isBlank(b[afterLevel])) {
            return -1;
        }
        return ((long) levelStart << 32) | letters;
    }

    /**
     * YYYY-MM-DD{' '|T}HH:MM:SS[{.|,}1-9 digits][Z|+HH:MM|+HHMM] at b[p, end), hours 00-23,
     * minutes and seconds 00-59, zone hours 00-14: the position after it, or -1. Fills t with
     * year, month, day, hour, minute and the zone offset in minutes (the date is not checked).
     */
    static int timestamp(byte[] b, int p, int end, int[] t) {
        if (end - p < 19 || !Bytes.digits(b, p, 4) || b[p + 4] != '-' || !Bytes.digits(b, p + 5, 2)
                || b[p + 7] != '-' || !Bytes.digits(b, p + 8, 2) || (b[p + 10] != ' ' && b[p + 10] != 'T')
                || !Bytes.digits(b, p + 11, 2) || b[p + 13] != ':' || !Bytes.digits(b, p + 14, 2)
                || b[p + 16] != ':' || !Bytes.digits(b, p + 17, 2)) {
            return -1;
        }
        t[0] = Bytes.number(b, p, 4);
        t[1] = Bytes.number(b, p + 5, 2);
        t[2] = Bytes.number(b, p + 8, 2);
        t[3] = Bytes.number(b, p + 11, 2);
        t[4] = Bytes.number(b, p + 14, 2);
        t[5] = 0;
        if (t[3] > 23 || t[4] > 59 || Bytes.number(b, p + 17, 2) > 59) {
            return -1;
        }
        p += 19;
        if (p < end && (b[p] == '.' || b[p] == ',')) {  // a fraction of 1 to 9 digits
            int digits = 0;
            while (p + 1 + digits < end && Bytes.isDigit(b[p + 1 + digits])) {
                digits++;
            }
            if (digits < 1 || digits > 9) {
                return -1;
            }
            p += 1 + digits;
        }
        if (p < end && b[p] == 'Z') {
            return p + 1;
        }
        if (p < end && (b[p] == '+' || b[p] == '-')) {
            int sign = b[p] == '-' ? -1 : 1;
            int q = p + 1;
            if (!(q + 2 <= end && Bytes.digits(b, q, 2))) {
                return -1;
            }
            int zoneHours = Bytes.number(b, q, 2);
            q += 2;
            if (q < end && b[q] == ':') {
                q++;
            }
            if (zoneHours > 14 || !(q + 2 <= end && Bytes.digits(b, q, 2)) || Bytes.number(b, q, 2) > 59) {
                return -1;
            }
            t[5] = sign * (zoneHours * 60 + Bytes.number(b, q, 2));
            return q + 2;
        }
        return p;
    }
}
