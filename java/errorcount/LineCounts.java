package errorcount;

/**
 * OnePass's most frequent group in a table of its own: counted lines inside their partition's
 * bounds (no partition, no dead slot, one Kafka record per line), keyed by topic, minute and series
 * alone. Each group is one key and one count in 16 bytes of a single open-addressing array, so
 * finding it costs one cache line where GroupTable's costs two (its index, then its 64-byte row);
 * counting every line of a spread batch, a task's ~14 000 such groups take 0.5 MB here against
 * 1.2 MB there, reached at random while Kafka's reader streams through the same L2
 * (docs/performance.md, "Counting every line"). drain() adds them to the GroupTable the rows are
 * emitted from, so the rows are the same groups either way.
 *
 * <p>A line whose keys do not pack into one long (a task's 256th topic on, or its 2^23rd series on;
 * a minute 2^32 or more from the epoch, which MySQL's DATETIME range, Outcome.MAX_MINUTE, never
 * reaches) or whose group's count is full is refused: OnePass counts it in the GroupTable instead,
 * and drain() adds the two together.
 */
final class LineCounts {
    private static final long MINUTE_BIAS = 1L << 32;  // minute + bias: 33 bits, bits 0-32
    private static final int SERIES_SHIFT = 33, SERIES_LIMIT = 1 << 23;  // series + 1: bits 33-55
    private static final int TOPIC_SHIFT = 56, TOPIC_LIMIT = 255;        // topic + 1: bits 56-63, never 0
    private static final long LINE = 1L << 32;  // a count: lines in its high half, ERROR lines in its low
    private static final long FULL = 0xFFFFFFFFL;

    private long[] slots = new long[2 * 64];  // per slot: its key (0: empty), its count
    private int size;
    private long newest = GroupTable.NO_LONG;  // the newest Kafka timestamp of any line counted here

    /** A line counted into its group, added if new; false (nothing counted) when it does not fit. */
    boolean count(int topicId, long minute, int seriesId, boolean error, long newestMs) {
        if (topicId >= TOPIC_LIMIT || seriesId + 1 >= SERIES_LIMIT || minute < -MINUTE_BIAS || minute >= MINUTE_BIAS) {
            return false;
        }
        long key = (long) (topicId + 1) << TOPIC_SHIFT | (long) (seriesId + 1) << SERIES_SHIFT | (minute + MINUTE_BIAS);
        int mask = (slots.length >> 1) - 1;
        for (int at = hash(key) & mask;; at = (at + 1) & mask) {
            long found = slots[2 * at];
            if (found == key) {
                if (slots[2 * at + 1] >>> 32 == FULL) {
                    return false;
                }
                slots[2 * at + 1] += LINE | (error ? 1 : 0);
                break;
            }
            if (found == 0) {
                slots[2 * at] = key;
                slots[2 * at + 1] = LINE | (error ? 1 : 0);
                if (++size * 2 > mask + 1) {
                    grow();
                }
                break;
            }
        }
        newest = Math.max(newest, newestMs);
        return true;
    }

    /** Every group counted here added to `groups` (the newest timestamp to one of them), then none here. */
    void drain(GroupTable groups) {
        long stamp = newest;
        for (int at = 0; at < slots.length; at += 2) {
            long key = slots[at];
            if (key != 0) {
                int topicId = (int) (key >>> TOPIC_SHIFT) - 1;
                int seriesId = (int) ((key >>> SERIES_SHIFT) & (SERIES_LIMIT - 1)) - 1;
                long minute = (key & (2 * MINUTE_BIAS - 1)) - MINUTE_BIAS;
                long count = slots[at + 1];
                int g = groups.find(topicId, GroupTable.NONE, minute, seriesId, GroupTable.NO_LONG);
                groups.add(g, count >>> 32, count & FULL, stamp);
                stamp = GroupTable.NO_LONG;
            }
        }
        slots = new long[2 * 64];
        size = 0;
        newest = GroupTable.NO_LONG;
    }

    private static int hash(long key) {
        long h = key * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29) ^ (h >>> 47));
    }

    private void grow() {
        long[] old = slots;
        slots = new long[old.length * 2];
        int mask = (slots.length >> 1) - 1;
        for (int at = 0; at < old.length; at += 2) {
            if (old[at] != 0) {
                int to = hash(old[at]) & mask;
                while (slots[2 * to] != 0) {
                    to = (to + 1) & mask;
                }
                slots[2 * to] = old[at];
                slots[2 * to + 1] = old[at + 1];
            }
        }
    }
}
