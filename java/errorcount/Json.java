package errorcount;

import java.io.ByteArrayOutputStream;

/**
 * Strict RFC 8259 JSON on raw UTF-8 bytes, iteratively (any nesting depth, no recursion), without
 * building a tree: validate a value, skip one, find an object's member, decode a string. Bytes
 * that are not ASCII are accepted inside strings only (decoding with replacement would turn an
 * invalid one into U+FFFD, which is legal there and nowhere else).
 */
final class Json {
    // Strings are scanned eight bytes at a time (SWAR): a word is read as a little-endian long, so
    // its lowest flagged byte is the first in the array. The flag tests are exact for that lowest
    // byte (a borrow only runs upward from a flagged byte), which is the only one read (Bytes.word).
    private static final long ONES = 0x0101010101010101L, HIGHS = 0x8080808080808080L;
    private static final long QUOTES = 0x2222222222222222L, BACKSLASHES = 0x5C5C5C5C5C5C5C5CL, SPACES = 0x2020202020202020L;

    private Json() {
    }

    /** The high bit of each byte of w below `n` times ONES (n <= 0x80; a byte of 0x80 or more never). */
    private static long below(long w, long n) {
        return (w - n) & ~w & HIGHS;
    }

    /** The first of b[p, p + 8) that is a quote or a backslash (p + 8 <= b.length), or p + 8. */
    private static int quoteOrEscape(byte[] b, int p) {
        long w = Bytes.word(b, p);
        long flags = below(w ^ QUOTES, ONES) | below(w ^ BACKSLASHES, ONES);
        return p + (Long.numberOfTrailingZeros(flags) >>> 3);  // 64 >>> 3: none of the eight
    }

    /** quoteOrEscape, or a control character (below 0x20). */
    private static int stringSpecial(byte[] b, int p) {
        long w = Bytes.word(b, p);
        long flags = below(w ^ QUOTES, ONES) | below(w ^ BACKSLASHES, ONES) | below(w, SPACES);
        return p + (Long.numberOfTrailingZeros(flags) >>> 3);
    }

    static boolean isWhitespace(byte c) {
        return c <= ' ' && (c == ' ' || c == '\t' || c == '\n' || c == '\r');  // most bytes tested are above ' '
    }

    static int skipWhitespace(byte[] b, int p, int end) {
        while (p < end && isWhitespace(b[p])) {
            p++;
        }
        return p;
    }

    /** The position after the one valid JSON value at p (whitespace first), or -1. */
    static int validValue(byte[] b, int p, int end) {
        return validValue(b, p, end, null);
    }

    /**
     * validValue, noting where each object and array ends in `containers` (null: not noted), so
     * that skipping one later costs a lookup instead of a pass over its bytes.
     */
    static int validValue(byte[] b, int p, int end, JsonContainers containers) {
        return validValue(b, p, end, containers, null, null);
    }

    /**
     * validValue of the value at p, finding on the way the top-level members of an object there
     * as members(names, found) does: one pass over the bytes for both (found: -1 where none;
     * undefined when the value is not valid).
     */
    static int validObject(byte[] b, int p, int end, byte[][] names, int[] found) {
        java.util.Arrays.fill(found, -1);
        return validValue(b, p, end, null, names, found);
    }

    private static int validValue(byte[] b, int p, int end, JsonContainers containers, byte[][] names, int[] found) {
        byte[] open = new byte[16];  // the containers we are in: '{' or '['
        int depth = 0;
        while (true) {
            p = skipWhitespace(b, p, end);
            if (p >= end) {
                return -1;
            }
            byte c = b[p];
            boolean valueDone = true;
            if (c == '{' || c == '[') {
                if (depth == open.length) {
                    open = java.util.Arrays.copyOf(open, depth * 2);
                }
                open[depth++] = c;
                if (containers != null) {
                    containers.open(p);
                }
                p = skipWhitespace(b, p + 1, end);
                if (p < end && b[p] == (c == '{' ? '}' : ']')) {
                    depth--;
                    p++;
                    if (containers != null) {
                        containers.close(p);
                    }
                } else if (c == '{') {
                    p = depth == 1 && names != null ? topMember(b, p, end, names, found) : memberName(b, p, end);
                    valueDone = false;
                } else {
                    valueDone = false;
                }
            } else if (c == '"') {
                p = validString(b, p, end);
            } else if (c == '-' || Bytes.isDigit(c)) {
                p = validNumber(b, p, end);
            } else {
                p = literal(b, p, end);
            }
            if (p < 0) {
                return -1;
            }
            // After a value: close containers, or take a comma and go on to the next value.
            while (valueDone) {
                if (depth == 0) {
                    return p;
                }
                p = skipWhitespace(b, p, end);
                if (p >= end) {
                    return -1;
                }
                byte container = open[depth - 1];
                if (b[p] == ',') {
                    int next = skipWhitespace(b, p + 1, end);
                    p = container != '{' ? p + 1
                            : depth == 1 && names != null ? topMember(b, next, end, names, found) : memberName(b, next, end);
                    if (p < 0) {
                        return -1;
                    }
                    valueDone = false;
                } else if (b[p] == (container == '{' ? '}' : ']')) {
                    depth--;
                    p++;
                    if (containers != null) {
                        containers.close(p);
                    }
                } else {
                    return -1;
                }
            }
        }
    }

    /** A member's name and colon at p: the position after the colon, or -1. */
    private static int memberName(byte[] b, int p, int end) {
        if (p >= end || b[p] != '"') {
            return -1;
        }
        p = validString(b, p, end);
        if (p < 0) {
            return -1;
        }
        p = skipWhitespace(b, p, end);
        return p < end && b[p] == ':' ? p + 1 : -1;
    }

    /** memberName of a top-level member, noting its value's position in `found` when it is one of `names`. */
    private static int topMember(byte[] b, int p, int end, byte[][] names, int[] found) {
        int after = memberName(b, p, end);
        if (after >= 0) {
            note(b, p, plainStringEnd(b, p), skipWhitespace(b, after, end), names, found);
        }
        return after;
    }

    /**
     * found[i] = valueAt for each of `names` the valid member name at p is, its escapes decoded;
     * `plain`: plainStringEnd of the name.
     */
    private static void note(byte[] b, int p, int plain, int valueAt, byte[][] names, int[] found) {
        byte[] escaped = plain >= 0 ? null : decode(b, p);
        int length = plain - p - 1;
        for (int i = 0; i < names.length; i++) {
            byte[] name = names[i];
            if (escaped != null ? java.util.Arrays.equals(escaped, name)
                    : length == name.length && java.util.Arrays.equals(b, p + 1, plain, name, 0, length)) {
                found[i] = valueAt;
            }
        }
    }

    private static int validString(byte[] b, int p, int end) {
        p++;
        while (p < end) {
            if (p + 8 <= end) {
                int q = stringSpecial(b, p);
                if (q == p + 8) {
                    p = q;
                    continue;
                }
                p = q;
            }
            byte c = b[p];
            if (c == '"') {
                return p + 1;
            }
            if (c == '\\') {
                if (p + 1 >= end) {
                    return -1;
                }
                byte e = b[p + 1];
                if (e == 'u') {
                    if (p + 6 > end || hex(b[p + 2]) < 0 || hex(b[p + 3]) < 0 || hex(b[p + 4]) < 0 || hex(b[p + 5]) < 0) {
                        return -1;
                    }
                    p += 6;
                } else if (e == '"' || e == '\\' || e == '/' || e == 'b' || e == 'f' || e == 'n' || e == 'r' || e == 't') {
                    p += 2;
                } else {
                    return -1;
                }
            } else if (c >= 0 && c < 0x20) {
                return -1;
            } else {
                p++;
            }
        }
        return -1;
    }

    /** -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? at p: the position after it, or -1. */
    static int validNumber(byte[] b, int p, int end) {
        if (p < end && b[p] == '-') {
            p++;
        }
        if (p >= end || !Bytes.isDigit(b[p])) {
            return -1;
        }
        if (b[p] == '0') {
            p++;
        } else {
            p = skipDigits(b, p, end);
        }
        if (p < end && b[p] == '.') {
            int q = skipDigits(b, p + 1, end);
            if (q == p + 1) {
                return -1;
            }
            p = q;
        }
        if (p < end && (b[p] == 'e' || b[p] == 'E')) {
            p++;
            if (p < end && (b[p] == '+' || b[p] == '-')) {
                p++;
            }
            int q = skipDigits(b, p, end);
            if (q == p) {
                return -1;
            }
            p = q;
        }
        return p;
    }

    static int skipDigits(byte[] b, int p, int end) {
        while (p < end && Bytes.isDigit(b[p])) {
            p++;
        }
        return p;
    }

    private static int literal(byte[] b, int p, int end) {
        for (String word : new String[] {"true", "false", "null"}) {
            if (p + word.length() <= end && matches(b, p, word)) {
                return p + word.length();
            }
        }
        return -1;
    }

    static boolean matches(byte[] b, int p, String ascii) {
        for (int i = 0; i < ascii.length(); i++) {
            if (b[p + i] != ascii.charAt(i)) {
                return false;
            }
        }
        return true;
    }

    static int hex(byte c) {
        return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
    }

    /** skip, a container through `containers` when given (null: by its bytes). */
    static int skip(byte[] b, int p, JsonContainers containers) {
        return containers != null && (b[p] == '{' || b[p] == '[') ? containers.end(p) : skip(b, p);
    }

    /** The position after the valid value at p (no whitespace before it). */
    static int skip(byte[] b, int p) {
        byte c = b[p];
        if (c == '"') {
            return skipString(b, p);
        }
        if (c != '{' && c != '[') {
            while (p < b.length && b[p] != ',' && b[p] != '}' && b[p] != ']' && !isWhitespace(b[p])) {
                p++;
            }
            return p;
        }
        int depth = 0;
        do {
            c = b[p];
            if (c == '"') {
                p = skipString(b, p);
                continue;
            }
            if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
            }
            p++;
        } while (depth > 0);
        return p;
    }

    private static int skipString(byte[] b, int p) {
        p++;
        while (true) {
            if (p + 8 <= b.length) {
                int q = quoteOrEscape(b, p);
                if (q == p + 8) {
                    p = q;
                    continue;
                }
                p = q;
            }
            if (b[p] == '"') {
                return p + 1;
            }
            p += b[p] == '\\' ? 2 : 1;
        }
    }

    /**
     * The value position of the member named {@code name} (UTF-8) of the valid object at p, the
     * last one when a name repeats, or -1.
     */
    static int member(byte[] b, int p, byte[] name) {
        int[] found = new int[1];
        members(b, p, new byte[][] {name}, found);
        return found[0];
    }

    /**
     * member for several names in one pass over the valid object at p: found[i] becomes the value
     * position of the last member named names[i], or -1.
     */
    static void members(byte[] b, int p, byte[][] names, int[] found) {
        members(b, p, names, found, null);
    }

    /** members, skipping values through `containers` (validValue's, or null). */
    static void members(byte[] b, int p, byte[][] names, int[] found, JsonContainers containers) {
        java.util.Arrays.fill(found, -1);
        p = skipWhitespace(b, p + 1, b.length);
        while (b[p] == '"') {
            int plain = plainStringEnd(b, p);
            int nameEnd = plain >= 0 ? plain + 1 : skipString(b, p);
            int valueAt = skipWhitespace(b, skipWhitespace(b, nameEnd, b.length) + 1, b.length);
            note(b, p, plain, valueAt, names, found);
            p = skipWhitespace(b, skip(b, valueAt, containers), b.length);
            if (b[p] == ',') {
                p = skipWhitespace(b, p + 1, b.length);
            }
        }
    }

    /** The position of the closing quote of the valid string at p (its quote) when it holds no escape, else -1. */
    static int plainStringEnd(byte[] b, int p) {
        int q = p + 1;
        while (q + 8 <= b.length) {
            int r = quoteOrEscape(b, q);
            if (r < q + 8) {
                return b[r] == '"' ? r : -1;
            }
            q = r;
        }
        while (b[q] != '"' && b[q] != '\\') {
            q++;
        }
        return b[q] == '"' ? q : -1;
    }

    /** The UTF-8 bytes of the valid string at p (its quote): escapes decoded, a lone surrogate as U+FFFD. */
    static byte[] decode(byte[] b, int p) {
        int q = plainStringEnd(b, p);
        if (q >= 0) {
            return java.util.Arrays.copyOfRange(b, p + 1, q);  // no escape: the bytes as they are
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p++;
        while (b[p] != '"') {
            if (b[p] != '\\') {
                out.write(b[p++]);
                continue;
            }
            byte e = b[p + 1];
            p += 2;
            if (e != 'u') {
                out.write(e == 'b' ? '\b' : e == 'f' ? '\f' : e == 'n' ? '\n' : e == 'r' ? '\r' : e == 't' ? '\t' : e);
                continue;
            }
            int unit = hex4(b, p);
            p += 4;
            int codePoint = unit;
            if (unit >= 0xD800 && unit <= 0xDBFF && b[p] == '\\' && b[p + 1] == 'u') {
                int low = hex4(b, p + 2);
                if (low >= 0xDC00 && low <= 0xDFFF) {
                    codePoint = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                    p += 6;
                }
            }
            if (codePoint >= 0xD800 && codePoint <= 0xDFFF) {
                codePoint = 0xFFFD;
            }
            byte[] utf8 = new String(Character.toChars(codePoint)).getBytes(java.nio.charset.StandardCharsets.UTF_8);
            out.write(utf8, 0, utf8.length);
        }
        return out.toByteArray();
    }

    private static int hex4(byte[] b, int p) {
        return (hex(b[p]) << 12) | (hex(b[p + 1]) << 8) | (hex(b[p + 2]) << 4) | hex(b[p + 3]);
    }
}
