package errorcount;

/** A contract on one line of text: app or access, for a whole value or a JSON event's message. */
interface LineFormat extends java.io.Serializable {
    /** The outcome of a trimmed, non-empty line b[start, end). */
    long classify(byte[] b, int start, int end);

    /** The outcome of b[0, length): its first line decides (Bytes.firstLine). */
    default long classifyValue(byte[] b, int length) {
        long line = Bytes.firstLine(b, length);
        int start = (int) (line >>> 32), end = (int) line;
        return start == end ? Outcome.EMPTY_LINE : classify(b, start, end);
    }

    /**
     * The dimension values of a line this contract counted, as raw bytes indexed Grouping.LEVEL,
     * STATUS, METHOD and TARGET (null: not this contract's). Called only for counted lines.
     */
    byte[][] labels(byte[] b, int start, int end);

    /** labels of b[0, length)'s first line, as classifyValue reads it. */
    default byte[][] labelsOfValue(byte[] b, int length) {
        long line = Bytes.firstLine(b, length);
        return labels(b, (int) (line >>> 32), (int) line);
    }
}
