package errorcount;

/**
 * Where each object and array of a value validValue checked ends, by where it starts: filled in
 * opening order, so the starts are sorted and a lookup is a binary search. Made per value.
 */
final class JsonContainers {
    private int[] starts = new int[16];
    private int[] ends = new int[16];
    private int count;
    private int[] open = new int[16];  // the slots of the containers not closed yet
    private int depth;

    void open(int at) {
        if (count == starts.length) {
            starts = java.util.Arrays.copyOf(starts, count * 2);
            ends = java.util.Arrays.copyOf(ends, count * 2);
        }
        if (depth == open.length) {
            open = java.util.Arrays.copyOf(open, depth * 2);
        }
        starts[count] = at;
        open[depth++] = count++;
    }

    void close(int after) {
        ends[open[--depth]] = after;
    }

    /** The position after the container starting at `start`. */
    int end(int start) {
        return ends[java.util.Arrays.binarySearch(starts, 0, count, start)];
    }
}
