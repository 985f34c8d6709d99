package errorcount;

/**
 * The {@code access} contract (Common and Combined Log Format) on one trimmed, non-empty line
 * b[start, end), parts separated by exactly one space:
 * {@code HOST IDENT USER [DD/Mon/YYYY:HH:MM:SS +HHMM] "REQUEST" STATUS BYTES[ anything]}.
 * Checked in order: bad_access_line, bad_status (outside 100-599), impossible_date,
 * minute_out_of_range. An error iff statusMin <= STATUS <= 599.
 */
final class AccessLine implements LineFormat {
    private static final long serialVersionUID = 1L;

    private static final byte[] MONTHS = "JanFebMarAprMayJunJulAugSepOctNovDec".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final int statusMin;

    AccessLine(Settings settings) {
        this.statusMin = settings.number("ERROR_STATUS_MIN");
    }

    @Override
    public long classify(byte[] b, int start, int end, Labels labels) {
        int p = start;
        for (int field = 0; field < 3; field++) {  // HOST IDENT USER, each followed by one space
            int q = p;
            while (q < end && !Bytes.isBlank(b[q])) {
                q++;
            }
            if (q == p || q >= end || b[q] != ' ') {
                return Outcome.BAD_ACCESS_LINE;
            }
            p = q + 1;
        }
        // [DD/Mon/YYYY:HH:MM:SS +HHMM]: 28 bytes
        if (end - p < 28 || b[p] != '[' || !Bytes.digits(b, p + 1, 2) || b[p + 3] != '/' || month(b, p + 4) == 0
                || b[p + 7] != '/' || !Bytes.digits(b, p + 8, 4) || b[p + 12] != ':' || !Bytes.digits(b, p + 13, 2)
                || b[p + 15] != ':' || !Bytes.digits(b, p + 16, 2) || b[p + 18] != ':' || !Bytes.digits(b, p + 19, 2)
                || b[p + 21] != ' ' || (b[p + 22] != '+' && b[p + 22] != '-') || !Bytes.digits(b, p + 23, 4)
                || b[p + 27] != ']') {
            return Outcome.BAD_ACCESS_LINE;
        }
        int day = Bytes.number(b, p + 1, 2), month = month(b, p + 4), year = Bytes.number(b, p + 8, 4);
        int hour = Bytes.number(b, p + 13, 2), minute = Bytes.number(b, p + 16, 2);
        int zoneHours = Bytes.number(b, p + 23, 2), zoneMinutes = Bytes.number(b, p + 25, 2);
        if (hour > 23 || minute > 59 || Bytes.number(b, p + 19, 2) > 59 || zoneHours > 14 || zoneMinutes > 59) {
            return Outcome.BAD_ACCESS_LINE;
        }
        int offset = (b[p + 22] == '-' ? -1 : 1) * (zoneHours * 60 + zoneMinutes);
        p += 28;
        // ' "REQUEST"': a backslash always takes the next byte with it
        if (end - p < 3 || b[p] != ' ' || b[p + 1] != '"') {
            return Outcome.BAD_ACCESS_LINE;
        }
        p += 2;
        int request = p;
        while (p < end && b[p] != '"') {
            p += b[p] == '\\' ? 2 : 1;
        }
        if (p >= end) {
            return Outcome.BAD_ACCESS_LINE;
        }
        int close = p++;
        // ' STATUS BYTES', then the end of the line or one space and anything
        if (end - p < 6 || b[p] != ' ' || !Bytes.digits(b, p + 1, 3) || b[p + 4] != ' ') {
            return Outcome.BAD_ACCESS_LINE;
        }
        int status = Bytes.number(b, p + 1, 3);
        p += 5;
        int q = p;
        if (b[q] == '-') {
            q++;
        } else {
            while (q < end && Bytes.isDigit(b[q])) {
                q++;
            }
        }
        if (q == p || (q < end && b[q] != ' ')) {
            return Outcome.BAD_ACCESS_LINE;
        }
        if (status < 100 || status > 599) {
            return Outcome.BAD_STATUS;
        }
        if (labels != null) {
            labels(b, request, close, labels);
        }
        return Calendar.outcome(year, month, day, hour, minute, offset, status >= statusMin);
    }

    /**
     * STATUS (the three digits after the request's closing quote at `close`), and the REQUEST
     * b[request, close)'s METHOD and TARGET: its first and second parts split at single spaces.
     */
    private static void labels(byte[] b, int request, int close, Labels labels) {
        labels.clear();
        labels.set(Grouping.STATUS, b, close + 2, close + 5);
        int space = request;
        while (space < close && b[space] != ' ') {
            space++;
        }
        labels.set(Grouping.METHOD, b, request, space);
        int target = Math.min(space + 1, close), targetEnd = target;
        while (targetEnd < close && b[targetEnd] != ' ') {
            targetEnd++;
        }
        labels.set(Grouping.TARGET, b, target, targetEnd);
    }

    /** 1-12 for a month name written exactly as Jan..Dec at b[at, at + 3), else 0. */
    private static int month(byte[] b, int at) {
        for (int m = 0; m < 12; m++) {
            if (b[at] == MONTHS[3 * m] && b[at + 1] == MONTHS[3 * m + 1] && b[at + 2] == MONTHS[3 * m + 2]) {
                return m + 1;
            }
        }
        return 0;
    }
}
