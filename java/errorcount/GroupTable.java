package errorcount;

import java.util.Arrays;

/**
 * One task's partial aggregate for OnePass: the groups of errorcount/pipeline/aggregate.py's
 * batch_summary_df (topic, partition, minute, series, dead slot) in an open-addressing table of
 * primitive keys, the topic and series as numbers of the task's dictionaries. A group's keys and
 * counts are one run of STRIDE longs, so a record touches a slot of the index and one group's few
 * cache lines (not a line per field): no key object, no boxed number per record.
 */
final class GroupTable {
    static final int NONE = -1;                 // a null partition or series
    static final long NO_LONG = Long.MIN_VALUE; // a null minute, dead slot or timestamp
    // A group's fields, at group * STRIDE + field: its keys, then what it counts
    static final int MINUTE = 0, SLOT = 1, TOPIC_PARTITION = 2, SERIES = 3, RECORDS = 4, LOG_RECORDS = 5, ERRORS = 6,
            REJECTED = 7, MIN_OFFSET = 8, MAX_OFFSET = 9, NEWEST = 10, REJECT_AT = 11;
    private static final int STRIDE = 12;

    int size;
    private long[] data = new long[16 * STRIDE];
    private int[] reason = new int[16];
    private byte[][] raw = new byte[16][];
    private int[] index = new int[64];          // group + 1 per hash slot, 0 for an empty one

    /** The group of these keys, added if new. */
    int find(int topicId, int partitionId, long minuteKey, int seriesId, long slotKey) {
        long topicPartition = (long) topicId << 32 | (partitionId & 0xFFFFFFFFL);
        int mask = index.length - 1;
        int at = hash(minuteKey, slotKey, topicPartition, seriesId) & mask;
        while (true) {
            int group = index[at] - 1;
            if (group < 0) {
                group = add(minuteKey, slotKey, topicPartition, seriesId);
                index[at] = group + 1;
                if (size * 2 > index.length) {
                    rehash();
                }
                return group;
            }
            int g = group * STRIDE;
            if (data[g + MINUTE] == minuteKey && data[g + SERIES] == seriesId && data[g + TOPIC_PARTITION] == topicPartition
                    && data[g + SLOT] == slotKey) {
                return group;
            }
            at = (at + 1) & mask;
        }
    }

    /** A record, or an OTLP log record, counted into `group`. */
    void count(int group, boolean first, boolean logRecord, boolean error, long offset, long newest) {
        int g = group * STRIDE;
        data[g + RECORDS] += first ? 1 : 0;
        data[g + LOG_RECORDS] += logRecord ? 1 : 0;
        data[g + ERRORS] += error ? 1 : 0;
        data[g + MIN_OFFSET] = Math.min(data[g + MIN_OFFSET], offset);
        data[g + MAX_OFFSET] = Math.max(data[g + MAX_OFFSET], offset);
        data[g + NEWEST] = Math.max(data[g + NEWEST], newest);
    }

    /**
     * A reject counted into `group`; with `pick` (the group is a dead slot), the first reject of its
     * lowest offset is its dead letter: its reason code and its value's first `prefix` bytes.
     */
    void reject(int group, long offset, boolean pick, int code, byte[] value, int prefix) {
        int g = group * STRIDE;
        data[g + REJECTED]++;
        if (pick && offset < data[g + REJECT_AT]) {
            data[g + REJECT_AT] = offset;
            reason[group] = code;
            raw[group] = value == null ? null : Arrays.copyOf(value, Math.min(value.length, prefix));
        }
    }

    long get(int group, int field) {
        return data[group * STRIDE + field];
    }

    int topic(int group) {
        return (int) (get(group, TOPIC_PARTITION) >> 32);
    }

    int partition(int group) {
        return (int) get(group, TOPIC_PARTITION);
    }

    int series(int group) {
        return (int) get(group, SERIES);
    }

    /** The reason code of the group's dead letter, NONE without one; its value's prefix. */
    int reason(int group) {
        return reason[group];
    }

    byte[] raw(int group) {
        return raw[group];
    }

    private static int hash(long minuteKey, long slotKey, long topicPartition, int seriesId) {
        long h = minuteKey * 0x9E3779B97F4A7C15L;
        h = (h ^ seriesId) * 0xC2B2AE3D27D4EB4FL;
        h = (h ^ topicPartition) * 0x165667B19E3779F9L;
        h = (h ^ slotKey) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29) ^ (h >>> 47));
    }

    private int add(long minuteKey, long slotKey, long topicPartition, int seriesId) {
        if (size == reason.length) {
            data = Arrays.copyOf(data, size * 2 * STRIDE);
            reason = Arrays.copyOf(reason, size * 2);
            raw = Arrays.copyOf(raw, size * 2);
        }
        int group = size++, g = group * STRIDE;
        data[g + MINUTE] = minuteKey;
        data[g + SLOT] = slotKey;
        data[g + TOPIC_PARTITION] = topicPartition;
        data[g + SERIES] = seriesId;
        data[g + MIN_OFFSET] = Long.MAX_VALUE;
        data[g + MAX_OFFSET] = Long.MIN_VALUE;
        data[g + NEWEST] = NO_LONG;
        data[g + REJECT_AT] = Long.MAX_VALUE;
        reason[group] = NONE;
        return group;
    }

    private void rehash() {
        index = new int[index.length * 2];
        int mask = index.length - 1;
        for (int group = 0; group < size; group++) {
            int g = group * STRIDE;
            int at = hash(data[g + MINUTE], data[g + SLOT], data[g + TOPIC_PARTITION], (int) data[g + SERIES]) & mask;
            while (index[at] != 0) {
                at = (at + 1) & mask;
            }
            index[at] = group + 1;
        }
    }
}
