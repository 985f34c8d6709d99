package errorcount;

/**
 * Protocol Buffers' wire format over a byte range, as OTLP's {@code otlp_proto} encoding writes it
 * (protobuf.dev, "Encoding"): a message is fields in any order, each a tag (field number << 3 |
 * wire type) and a value: a varint (0), a fixed 64-bit value (1), a length-delimited range (2: a
 * string, bytes, an embedded message or a packed repeated field) or a fixed 32-bit value (5).
 * Unknown fields are skipped by their wire type, as receivers must, groups (3 to the matching 4)
 * included, as protobuf's parsers skip them; an unmatched end of group and the wire types 6 and 7
 * are malformed, and so are groups nested deeper than MAX_DEPTH (protobuf's parsers' recursion limit).
 *
 * <p>A reader walks one message: {@link #next()} reads the next field into {@link #field},
 * {@link #wireType} and its value ({@link #number} for 0, 1, 5; {@link #from}..{@link #to} for 2),
 * and returns false at the message's end or at the first malformed byte, after which
 * {@link #malformed()} tells which. An embedded message is read by another reader over
 * {@code from..to}. No input (truncated varints, lengths past the end or negative, any nesting)
 * makes it throw or read outside its range.
 */
final class Protobuf {
    static final int VARINT = 0;
    static final int FIXED64 = 1;
    static final int LEN = 2;
    static final int START_GROUP = 3;
    static final int END_GROUP = 4;
    static final int FIXED32 = 5;
    static final int MAX_DEPTH = 100;

    private final byte[] bytes;
    private final int end;
    private final int depth;  // this message's nesting: the outermost is 0
    private int at;
    private boolean malformed;

    int field;
    int wireType;
    long number;
    int from;
    int to;

    Protobuf(byte[] bytes, int from, int to) {
        this(bytes, from, to, 0);
    }

    private Protobuf(byte[] bytes, int from, int to, int depth) {
        this.bytes = bytes;
        this.at = from;
        this.end = to;
        this.depth = depth;
    }

    /**
     * A reader over the current length-delimited field as an embedded message, one level deeper;
     * null beyond MAX_DEPTH levels (the caller reports the message malformed).
     */
    Protobuf message() {
        return depth < MAX_DEPTH ? new Protobuf(bytes, from, to, depth + 1) : null;
    }

    /** A reader over the rest of this message, from where this one is (read it twice: one pass each). */
    Protobuf copy() {
        return new Protobuf(bytes, at, end, depth);
    }

    /** The bytes read (the whole value: from and to index into them). */
    byte[] bytes() {
        return bytes;
    }

    /** Whether bytes[start, stop) are `other`'s. */
    boolean rangeEquals(int start, int stop, byte[] other) {
        return java.util.Arrays.equals(bytes, start, stop, other, 0, other.length);
    }

    /** Whether reading stopped at a malformed byte rather than at the message's end. */
    boolean malformed() {
        return malformed;
    }

    /** Reads the next field; false at the end of the message or when it is malformed. */
    boolean next() {
        if (at >= end || malformed) {
            return false;
        }
        long tag = varint();
        if (malformed || tag >>> 3 == 0 || tag >>> 3 > 0x1FFFFFFFL) {
            return fail();
        }
        field = (int) (tag >>> 3);
        wireType = (int) (tag & 7);
        switch (wireType) {
            case VARINT:
                number = varint();
                return !malformed;
            case FIXED64:
                return fixed(8);
            case FIXED32:
                return fixed(4);
            case LEN:
                long length = varint();
                if (malformed || length < 0 || length > end - at) {
                    return fail();
                }
                from = at;
                to = at + (int) length;
                at = to;
                return true;
            case START_GROUP:
                return skipGroup(field);
            default:
                return fail();
        }
    }

    /** Past the fields of the group `opened` up to its end-of-group tag (nested groups within). */
    private boolean skipGroup(int opened) {
        if (depth == MAX_DEPTH) {
            return fail();
        }
        int[] open = new int[MAX_DEPTH - depth];  // a group is a level as a message is
        int groups = 0;
        open[groups++] = opened;
        while (groups > 0) {
            long tag = at < end ? varint() : -1;
            if (tag < 0 || malformed || tag >>> 3 == 0 || tag >>> 3 > 0x1FFFFFFFL) {
                return fail();
            }
            int number = (int) (tag >>> 3);
            switch ((int) (tag & 7)) {
                case VARINT:
                    varint();
                    break;
                case FIXED64:
                    skip(8);
                    break;
                case FIXED32:
                    skip(4);
                    break;
                case LEN:
                    long length = varint();
                    if (malformed || length < 0 || length > end - at) {
                        return fail();
                    }
                    at += (int) length;
                    break;
                case START_GROUP:
                    if (groups == open.length) {
                        return fail();
                    }
                    open[groups++] = number;
                    break;
                case END_GROUP:
                    if (open[--groups] != number) {
                        return fail();
                    }
                    break;
                default:
                    return fail();
            }
            if (malformed) {
                return false;
            }
        }
        return true;
    }

    private void skip(int size) {
        if (end - at < size) {
            fail();
        } else {
            at += size;
        }
    }


    private boolean fixed(int size) {
        if (end - at < size) {
            return fail();
        }
        long value = 0;
        for (int i = size - 1; i >= 0; i--) {
            value = (value << 8) | (bytes[at + i] & 0xFF);  // little-endian
        }
        number = value;
        at += size;
        return true;
    }

    /** A base-128 varint of at most 10 bytes (a 64-bit value); malformed when truncated or longer. */
    private long varint() {
        long value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at >= end) {
                fail();
                return 0;
            }
            byte b = bytes[at++];
            value |= (long) (b & 0x7F) << shift;
            if (b >= 0) {
                return value;
            }
        }
        fail();
        return 0;
    }

    private boolean fail() {
        malformed = true;
        return false;
    }
}
