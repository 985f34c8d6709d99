package errorcount;

/**
 * A dimension value as stored (docs/contract.md, "Dimensions"): the bytes read as UTF-8, each
 * maximal ill-formed subpart becoming one U+FFFD (Unicode's recommended practice, as WHATWG's and
 * Python's decoders do; Java's own decoder differs on encoded surrogates); code points up to U+0020 trimmed from both ends; every
 * other control character (U+0000-U+001F, U+007F-U+009F) replaced by U+FFFD; then cut, at a code
 * point boundary, to at most MAX_BYTES bytes of UTF-8. Never null: a missing value is "".
 */
final class Label {
    static final int MAX_BYTES = 64;
    static final char REPLACEMENT = '\uFFFD';

    private Label() {
    }

    /** The label of b (null: "") appended to a series as UTF-8. */
    static void append(SeriesBuffer out, byte[] b) {
        if (b != null) {
            append(out, b, 0, b.length);
        }
    }

    /** The label of b[start, end) appended to a series as UTF-8: the bytes themselves when they are already as stored. */
    static void append(SeriesBuffer out, byte[] b, int start, int end) {
        if (isStored(b, start, end)) {
            out.write(b, start, end);
        } else {
            out.write(normalized(b, start, end).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        }
    }

    /** append's other path: b[start, end) decoded, trimmed, control characters replaced, cut to MAX_BYTES. */
    private static String normalized(byte[] b, int start, int end) {
        String text = decode(b, start, end).trim();  // trim() drops code points <= U+0020
        StringBuilder out = new StringBuilder(Math.min(text.length(), MAX_BYTES));
        int bytes = 0;
        for (int i = 0; i < text.length();) {
            int codePoint = text.codePointAt(i);
            i += Character.charCount(codePoint);
            if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f)) {
                codePoint = REPLACEMENT;
            }
            int size = codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
            if (bytes + size > MAX_BYTES) {
                break;
            }
            out.appendCodePoint(codePoint);
            bytes += size;
        }
        return out.toString();
    }

    /**
     * b[start, end) is its own label: at most MAX_BYTES of well-formed UTF-8 (table 3-7) with no
     * control character (U+0000-U+001F, U+007F-U+009F) and no blank at either end to trim, so
     * decoding, trimming, replacing and cutting would give the same bytes back (the usual status,
     * method, path, level, name, and names with accents: no String is made for them).
     */
    static boolean isStored(byte[] b, int start, int end) {
        if (end - start > MAX_BYTES) {
            return false;
        }
        if (end > start && ((b[start] & 0xff) <= 0x20 || (b[end - 1] & 0xff) <= 0x20)) {
            return false;  // trim() would drop it (a byte of a multi-byte character is >= 0x80)
        }
        for (int i = start; i < end;) {
            int lead = b[i] & 0xff;
            if (lead < 0x80) {
                if (lead < 0x20 || lead == 0x7f) {
                    return false;
                }
                i++;
                continue;
            }
            int length = sequence(b, i, end);
            if (length < 0 || (lead == 0xc2 && (b[i + 1] & 0xff) < 0xa0)) {
                return false;  // ill-formed (or cut by `end`), or C2 80-9F: a C1 control, replaced
            }
            i += length;
        }
        return true;
    }

    /** UTF-8 per the Unicode standard's table 3-7, each maximal ill-formed subpart one U+FFFD. */
    static String decode(byte[] b, int start, int end) {
        StringBuilder out = new StringBuilder(end - start);
        for (int i = start; i < end;) {
            int lead = b[i] & 0xff;
            if (lead < 0x80) {
                out.append((char) lead);
                i++;
                continue;
            }
            int length = sequence(b, i, end);
            if (length < 0) {
                out.append(REPLACEMENT);
                i -= length;
                continue;
            }
            int codePoint = lead & (0x3f >> (length - 1));
            for (int k = 1; k < length; k++) {
                codePoint = (codePoint << 6) | (b[i + k] & 0x3f);
            }
            out.appendCodePoint(codePoint);
            i += length;
        }
        return out.toString();
    }

    /**
     * The multi-byte sequence whose lead byte (>= 0x80) is at b[i], before `end`, per the Unicode
     * standard's table 3-7: its length when well-formed (2 to 4), else minus the length of its
     * maximal ill-formed subpart (the bytes one U+FFFD replaces).
     */
    private static int sequence(byte[] b, int i, int end) {
        int lead = b[i] & 0xff;
        int need = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
        if (need == 0) {
            return -1;
        }
        int low = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
        int high = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
        for (int k = 1; k <= need; k++) {
            int next = i + k < end ? b[i + k] & 0xff : -1;
            if (next < low || next > high) {
                return -k;
            }
            low = 0x80;
            high = 0xbf;
        }
        return need + 1;
    }
}
