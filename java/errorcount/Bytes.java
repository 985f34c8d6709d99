package errorcount;

/** Byte-level helpers shared by the contracts: the grammar is ASCII, the input raw UTF-8. */
final class Bytes {
    private static final java.lang.invoke.VarHandle WORD =
            java.lang.invoke.MethodHandles.byteArrayViewVarHandle(long[].class, java.nio.ByteOrder.LITTLE_ENDIAN);

    private Bytes() {
    }

    /** b[at, at + 8) as a little-endian long (at + 8 <= b.length): the lowest byte is b[at]. */
    static long word(byte[] b, int at) {
        return (long) WORD.get(b, at);
    }

    static boolean isBlank(byte c) {
        return c == ' ' || c == '\t';
    }

    static boolean isDigit(byte c) {
        return c >= '0' && c <= '9';
    }

    static boolean isLetter(byte c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }

    static int upper(byte c) {
        return c >= 'a' && c <= 'z' ? c - 32 : c;
    }

    static boolean digits(byte[] b, int at, int count) {
        for (int i = at; i < at + count; i++) {
            if (!isDigit(b[i])) {
                return false;
            }
        }
        return true;
    }

    static int number(byte[] b, int at, int count) {
        int n = 0;
        for (int i = at; i < at + count; i++) {
            n = n * 10 + (b[i] - '0');
        }
        return n;
    }

    /**
     * The first line of b[0, length) as {@code start << 32 | end}: up to the first LF, without one
     * CR before it (or at the very end), spaces and tabs trimmed. start == end: an empty line.
     */
    static long firstLine(byte[] b, int length) {
        int end = 0;
        while (end < length && b[end] != '\n') {
            end++;
        }
        if (end > 0 && b[end - 1] == '\r') {
            end--;
        }
        int start = 0;
        while (start < end && isBlank(b[start])) {
            start++;
        }
        while (end > start && isBlank(b[end - 1])) {
            end--;
        }
        return ((long) start << 32) | end;
    }

    /** ASCII case-insensitive: is b[at, at + length) one of the upper-cased names? */
    static boolean isOneOf(byte[] b, int at, int length, byte[][] upperNames) {
        for (byte[] name : upperNames) {
            if (name.length == length && sameUpper(b, at, name)) {
                return true;
            }
        }
        return false;
    }

    private static boolean sameUpper(byte[] b, int at, byte[] upperName) {
        for (int i = 0; i < upperName.length; i++) {
            if (upper(b[at + i]) != upperName[i]) {
                return false;
            }
        }
        return true;
    }
}
