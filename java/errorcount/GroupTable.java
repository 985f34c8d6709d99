package errorcount;

import java.util.Arrays;

/**
 * One task's partial aggregate for OnePass: the groups of errorcount/pipeline/aggregate.py's
 * batch_summary_df (topic, partition, minute, series, dead slot) in an open-addressing table of
 * primitive keys, the topic and series as numbers of the task's dictionaries. No key object, no
 * boxed number per record.
 *
 * <p>Counting every line, a task of a spread corpus holds ~14 000 groups reached at random while
 * Kafka's reader streams through the same cache, so the layout is about cache lines: a group's keys
 * and what every record counts are one run of HOT longs (64 bytes); what only some groups need
 * (rejects, offset ranges, the dead letter) lives in a second array, touched only by them. The
 * index holds each slot's hash beside its group, so a probe past another group's slot does not
 * reach that group's data.
 */
final class GroupTable {
    static final int NONE = -1;                 // a null partition or series
    static final long NO_LONG = Long.MIN_VALUE; // a null minute, dead slot or timestamp
    // A group's fields, at group * HOT + field: its keys, then what every record counts
    static final int MINUTE = 0, SLOT = 1, TOPIC_PARTITION = 2, SERIES = 3, RECORDS = 4, LOG_RECORDS = 5, ERRORS = 6,
            NEWEST = 7;
    private static final int HOT = 8;
    // ... and at group * COLD + field - REJECTED of the second array: rejects, and the offset range
    // of a group keyed by its partition (the fold's ranges and dead letters read no other's). Each
    // is stored so that 0, the array's own initial value, means none: a new group never touches
    // this array (nor `reason`), only the groups that use them do.
    static final int REJECTED = 8, MIN_OFFSET = 9, MAX_OFFSET = 10, REJECT_AT = 11;
    private static final int COLD = 4;
    // MIN_OFFSET and REJECT_AT hold Long.MAX_VALUE - offset (the lowest offset is the largest
    // value), MAX_OFFSET offset + 1; reason its code + 1: a Kafka offset is never negative
    private static final long FLIP = Long.MAX_VALUE;

    int size;
    private long[] hot = new long[16 * HOT];
    private long[] cold = new long[16 * COLD];
    private int[] reason = new int[16];
    private byte[][] raw = new byte[16][];
    private long[] index = new long[64];        // per slot: hash << 32 | group + 1; 0 for an empty one

    /** The group of these keys, added if new. */
    int find(int topicId, int partitionId, long minuteKey, int seriesId, long slotKey) {
        long topicPartition = (long) topicId << 32 | (partitionId & 0xFFFFFFFFL);
        int hash = hash(minuteKey, slotKey, topicPartition, seriesId), mask = index.length - 1;
        for (int at = hash & mask;; at = (at + 1) & mask) {
            long entry = index[at];
            if (entry == 0) {
                int group = add(minuteKey, slotKey, topicPartition, seriesId);
                index[at] = (long) hash << 32 | (group + 1);
                if (size * 2 > index.length) {
                    rehash();
                }
                return group;
            }
            if ((int) (entry >>> 32) == hash) {
                int group = (int) entry - 1, g = group * HOT;
                if (hot[g + MINUTE] == minuteKey && hot[g + SERIES] == seriesId
                        && hot[g + TOPIC_PARTITION] == topicPartition && hot[g + SLOT] == slotKey) {
                    return group;
                }
            }
        }
    }

    /** A record, or an OTLP log record, counted into `group`. */
    void count(int group, boolean first, boolean logRecord, boolean error, long offset, long newest) {
        int g = group * HOT;
        hot[g + RECORDS] += first ? 1 : 0;
        hot[g + LOG_RECORDS] += logRecord ? 1 : 0;
        hot[g + ERRORS] += error ? 1 : 0;
        hot[g + NEWEST] = Math.max(hot[g + NEWEST], newest);
        if (partition(group) != NONE) {
            int c = group * COLD - REJECTED;
            cold[c + MIN_OFFSET] = Math.max(cold[c + MIN_OFFSET], FLIP - offset);
            cold[c + MAX_OFFSET] = Math.max(cold[c + MAX_OFFSET], offset + 1);
        }
    }

    /** LineCounts' lines and ERROR lines of a group of no partition added to `group`, each one record and one log record. */
    void add(int group, long lines, long errors, long newest) {
        int g = group * HOT;
        hot[g + RECORDS] += lines;
        hot[g + LOG_RECORDS] += lines;
        hot[g + ERRORS] += errors;
        hot[g + NEWEST] = Math.max(hot[g + NEWEST], newest);
    }

    /**
     * A reject counted into `group`; with `pick` (the group is a dead slot), the first reject of its
     * lowest offset is its dead letter: its reason code and its value's first `prefix` bytes.
     */
    void reject(int group, long offset, boolean pick, int code, byte[] value, int prefix) {
        int c = group * COLD - REJECTED;
        cold[c + REJECTED]++;
        if (pick && FLIP - offset > cold[c + REJECT_AT]) {
            cold[c + REJECT_AT] = FLIP - offset;
            reason[group] = code + 1;
            raw[group] = value == null ? null : Arrays.copyOf(value, Math.min(value.length, prefix));
        }
    }

    /** A field of the group, the second array's decoded; MIN_OFFSET, MAX_OFFSET and REJECT_AT are NO_LONG when never set (MIN_OFFSET and MAX_OFFSET for every group of partition NONE). */
    long get(int group, int field) {
        if (field < REJECTED) {
            return hot[group * HOT + field];
        }
        long stored = cold[group * COLD + field - REJECTED];
        if (field == REJECTED) {
            return stored;
        }
        return stored == 0 ? NO_LONG : field == MAX_OFFSET ? stored - 1 : FLIP - stored;
    }

    int topic(int group) {
        return (int) (hot[group * HOT + TOPIC_PARTITION] >> 32);
    }

    int partition(int group) {
        return (int) hot[group * HOT + TOPIC_PARTITION];
    }

    int series(int group) {
        return (int) hot[group * HOT + SERIES];
    }

    /** The reason code of the group's dead letter, NONE without one; its value's prefix. */
    int reason(int group) {
        return reason[group] - 1;
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
            hot = Arrays.copyOf(hot, size * 2 * HOT);
            cold = Arrays.copyOf(cold, size * 2 * COLD);
            reason = Arrays.copyOf(reason, size * 2);
            raw = Arrays.copyOf(raw, size * 2);
        }
        int group = size++, g = group * HOT;
        hot[g + MINUTE] = minuteKey;
        hot[g + SLOT] = slotKey;
        hot[g + TOPIC_PARTITION] = topicPartition;
        hot[g + SERIES] = seriesId;
        hot[g + NEWEST] = NO_LONG;
        return group;
    }

    private void rehash() {
        long[] old = index;
        index = new long[old.length * 2];
        int mask = index.length - 1;
        for (long entry : old) {
            if (entry != 0) {
                int at = (int) (entry >>> 32) & mask;
                while (index[at] != 0) {
                    at = (at + 1) & mask;
                }
                index[at] = entry;
            }
        }
    }
}
