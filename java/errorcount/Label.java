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
            int need = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
            if (need == 0 || i + need >= end) {
                return false;  // an ill-formed lead byte, or a character cut by `end`
            }
            // C2 80-9F is a C1 control character: replaced, so not stored
            int low = lead == 0xe0 || lead == 0xc2 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
            int high = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
            int second = b[i + 1] & 0xff;
            if (second < low || second > high) {
                return false;
            }
            for (int k = 2; k <= need; k++) {
                int next = b[i + k] & 0xff;
                if (next < 0x80 || next > 0xbf) {
                    return false;
                }
            }
            i += need + 1;
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
            int need = lead >= 0xc2 && lead <= 0xdf ? 1 : lead >= 0xe0 && lead <= 0xef ? 2 : lead >= 0xf0 && lead <= 0xf4 ? 3 : 0;
            int low = lead == 0xe0 ? 0xa0 : lead == 0xf0 ? 0x90 : 0x80;
            int high = lead == 0xed ? 0x9f : lead == 0xf4 ? 0x8f : 0xbf;
            int codePoint = lead & (0x3f >> need);
            int j = i + 1;
            for (int k = 0; k < need; k++, j++) {
                int next = j < end ? b[j] & 0xff : -1;
                if (next < low || next > high) {
                    codePoint = -1;
                    break;
                }
                codePoint = (codePoint << 6) | (next & 0x3f);
                low = 0x80;
                high = 0xbf;
            }
            out.appendCodePoint(need == 0 || codePoint < 0 ? REPLACEMENT : codePoint);
            i = need == 0 ? i + 1 : j;
        }
        return out.toString();
    }
}
