package errorcount;

import java.util.Arrays;

/**
 * One task's dictionary of series for OnePass: a number per distinct series, looked up by the
 * bytes of the buffer the record's series was written into, in an open-addressing table. Only a
 * series new to the task is copied; a record costs a hash of its series' bytes and one compare.
 */
final class SeriesIds {
    private byte[][] values = new byte[16][];
    private int[] hashes = new int[16];
    private int size;
    private int[] index = new int[32];  // id + 1 per slot, 0 for an empty one

    /** The number of the series in `series`, added if new. */
    int id(SeriesBuffer series) {
        int hash = series.hash(), mask = index.length - 1;
        for (int at = hash & mask;; at = (at + 1) & mask) {
            int id = index[at] - 1;
            if (id < 0) {
                return add(series.copy(), hash, at);
            }
            if (hashes[id] == hash && series.holds(values[id])) {
                return id;
            }
        }
    }

    int size() {
        return size;
    }

    /** The UTF-8 bytes of the series numbered `id`. */
    byte[] bytes(int id) {
        return values[id];
    }

    private int add(byte[] value, int hash, int at) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
            hashes = Arrays.copyOf(hashes, size * 2);
        }
        values[size] = value;
        hashes[size] = hash;
        index[at] = ++size;
        if (size * 2 > index.length) {
            index = new int[index.length * 2];
            int mask = index.length - 1;
            for (int id = 0; id < size; id++) {
                int slot = hashes[id] & mask;
                while (index[slot] != 0) {
                    slot = (slot + 1) & mask;
                }
                index[slot] = id + 1;
            }
        }
        return size - 1;
    }
}
