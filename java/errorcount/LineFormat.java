package errorcount;

/** A contract on one line of text: app or access, for a whole value or a JSON event's message. */
interface LineFormat extends java.io.Serializable {
    /**
     * The outcome of a trimmed, non-empty line b[start, end). With `labels` (null: not wanted), a
     * counted line's dimension values (LEVEL, STATUS, METHOD, TARGET: those of this contract) are
     * set in it as found on the way; after a reject it holds nothing to read.
     */
    long classify(byte[] b, int start, int end, Labels labels);

    /** The outcome of b[0, length): its first line decides (Bytes.firstLine). */
    default long classifyValue(byte[] b, int length, Labels labels) {
        long line = Bytes.firstLine(b, length);
        int start = (int) (line >>> 32), end = (int) line;
        return start == end ? Outcome.EMPTY_LINE : classify(b, start, end, labels);
    }
}
