package errorcount;

/**
 * The integers of OTLP's JSON encoding, as protobuf's JSON mapping writes 64-bit ones: a JSON
 * integer (no fraction, no exponent) or a string of digits, '-' first for a signed one; a
 * string's escapes decoded first. No input makes them throw or read outside the value.
 */
final class JsonIntegers {
    private static final long TENTH = Long.divideUnsigned(-1L, 10);  // (2^64 - 1) / 10, rounded down
    private JsonIntegers() {
    }

    /** An unsigned 64-bit integer at p (-1: absent, 0) into number[0]: a decimal string or a JSON integer. */
    static boolean unsigned(byte[] b, int p, long[] number) {
        number[0] = 0;
        if (p < 0) {
            return true;
        }
        if (b[p] == '"') {
            int end = plainEnd(b, p);
            if (end >= 0) {  // no escape: the digits in place, nothing copied
                return digits(b, p + 1, end, true, number);
            }
            byte[] text = Json.decode(b, p);
            return digits(text, 0, text.length, true, number);
        }
        boolean negative = b[p] == '-';
        int to = Json.skipDigits(b, negative ? p + 1 : p, b.length);
        return integer(b, to) && digits(b, negative ? p + 1 : p, to, true, number) && (!negative || number[0] == 0);
    }

    /** A signed integer within [low, high] at p into number[0]: a string of an optional '-' and digits, or a JSON integer. */
    static boolean signed(byte[] b, int p, long low, long high, long[] number) {
        boolean quoted = b[p] == '"';
        byte[] text = quoted ? Json.decode(b, p) : b;  // a string's digits as decoded
        int from = quoted ? 0 : p;
        boolean negative = from < text.length && text[from] == '-';
        int to = quoted ? text.length : Json.skipDigits(b, negative ? from + 1 : from, b.length);
        if (!quoted && !integer(b, to) || !digits(text, negative ? from + 1 : from, to, false, number)) {
            return false;
        }
        if (negative) {
            // the magnitude read as unsigned: up to 2^63 for the lowest value
            if (Long.compareUnsigned(number[0], -low) > 0) {
                return false;
            }
            number[0] = -number[0];
            return true;
        }
        return number[0] >= 0 && number[0] <= high;
    }

    /** The digits b[from, to), at least one, as an unsigned 64-bit value (any digits when `any`: else at most 2^63). */
    private static boolean digits(byte[] b, int from, int to, boolean any, long[] number) {
        if (to <= from) {
            return false;
        }
        long value = 0;
        for (int i = from; i < to; i++) {
            if (!Bytes.isDigit(b[i])) {
                return false;
            }
            int digit = b[i] - '0';
            // value * 10 + digit must stay within 2^64 - 1 (unsigned): 1844674407370955161 * 10 + 5 is that
            if (Long.compareUnsigned(value, TENTH) > 0 || value == TENTH && digit > 5) {
                return false;
            }
            value = value * 10 + digit;
        }
        number[0] = value;
        return any || Long.compareUnsigned(value, Long.MIN_VALUE) <= 0;
    }

    /** The closing quote of the valid string at p when it has no escape, else -1. */
    private static int plainEnd(byte[] b, int p) {
        for (int q = p + 1;; q++) {
            if (b[q] == '"') {
                return q;
            }
            if (b[q] == '\\') {
                return -1;
            }
        }
    }

    /** Whether the JSON number ending at `to` had no fraction and no exponent. */
    private static boolean integer(byte[] b, int to) {
        return to >= b.length || (b[to] != '.' && b[to] != 'e' && b[to] != 'E');
    }
}
