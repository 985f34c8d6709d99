package errorcount;

import java.util.Arrays;

/**
 * One task's partial aggregate for OnePass: the groups of errorcount/pipeline/aggregate.py's
 * batch_summary_df (topic, partition, minute, series, dead slot) in an open-addressing table of
 * primitive keys, the topic and series as numbers of the task's dictionaries. A record costs a hash
 * of five numbers and a few array writes: no key object, no boxed number per record.
 */
final class GroupTable {
    static final int NONE = -1;                 // a null partition or series
    static final long NO_LONG = Long.MIN_VALUE; // a null minute, dead slot or timestamp

    int size;
    int[] topic = new int[16], partition = new int[16], series = new int[16];
    long[] minute = new long[16], slot = new long[16];
    long[] records = new long[16], logRecords = new long[16], errors = new long[16], rejected = new long[16];
    long[] minOffset = new long[16], maxOffset = new long[16], newest = new long[16], rejectAt = new long[16];
    int[] reason = new int[16];
    byte[][] raw = new byte[16][];
    private int[] index = new int[64];          // group + 1 per hash slot, 0 for an empty one

    /** The group of these keys, added if new. */
    int find(int topicId, int partitionId, long minuteKey, int seriesId, long slotKey) {
        int mask = index.length - 1;
        int at = hash(topicId, partitionId, minuteKey, seriesId, slotKey) & mask;
        while (true) {
            int group = index[at] - 1;
            if (group < 0) {
                group = add(topicId, partitionId, minuteKey, seriesId, slotKey);
                index[at] = group + 1;
                if (size * 2 > index.length) {
                    rehash();
                }
                return group;
            }
            if (minute[group] == minuteKey && series[group] == seriesId && topic[group] == topicId
                    && partition[group] == partitionId && slot[group] == slotKey) {
                return group;
            }
            at = (at + 1) & mask;
        }
    }

    private static int hash(int topicId, int partitionId, long minuteKey, int seriesId, long slotKey) {
        long h = minuteKey * 0x9E3779B97F4A7C15L;
        h = (h ^ seriesId) * 0xC2B2AE3D27D4EB4FL;
        h = (h ^ ((long) topicId << 32 | (partitionId & 0xFFFFFFFFL))) * 0x165667B19E3779F9L;
        h = (h ^ slotKey) * 0x9E3779B97F4A7C15L;
        return (int) (h ^ (h >>> 29) ^ (h >>> 47));
    }

    private int add(int topicId, int partitionId, long minuteKey, int seriesId, long slotKey) {
        if (size == topic.length) {
            grow(size * 2);
        }
        int group = size++;
        topic[group] = topicId;
        partition[group] = partitionId;
        minute[group] = minuteKey;
        series[group] = seriesId;
        slot[group] = slotKey;
        minOffset[group] = Long.MAX_VALUE;
        maxOffset[group] = Long.MIN_VALUE;
        newest[group] = NO_LONG;
        rejectAt[group] = Long.MAX_VALUE;
        reason[group] = NONE;
        return group;
    }

    private void grow(int capacity) {
        topic = Arrays.copyOf(topic, capacity);
        partition = Arrays.copyOf(partition, capacity);
        series = Arrays.copyOf(series, capacity);
        minute = Arrays.copyOf(minute, capacity);
        slot = Arrays.copyOf(slot, capacity);
        records = Arrays.copyOf(records, capacity);
        logRecords = Arrays.copyOf(logRecords, capacity);
        errors = Arrays.copyOf(errors, capacity);
        rejected = Arrays.copyOf(rejected, capacity);
        minOffset = Arrays.copyOf(minOffset, capacity);
        maxOffset = Arrays.copyOf(maxOffset, capacity);
        newest = Arrays.copyOf(newest, capacity);
        rejectAt = Arrays.copyOf(rejectAt, capacity);
        reason = Arrays.copyOf(reason, capacity);
        raw = Arrays.copyOf(raw, capacity);
    }

    private void rehash() {
        index = new int[index.length * 2];
        int mask = index.length - 1;
        for (int group = 0; group < size; group++) {
            int at = hash(topic[group], partition[group], minute[group], series[group], slot[group]) & mask;
            while (index[at] != 0) {
                at = (at + 1) & mask;
            }
            index[at] = group + 1;
        }
    }
}
