package errorcount;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.function.MapPartitionsFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.Encoders;
import org.apache.spark.sql.types.StructType;

/**
 * One pass per task (work in progress, not wired in): each Kafka record of the task classified
 * (ClassifyLine) and counted into the same groups errorcount/pipeline/aggregate.py's
 * batch_summary_df makes (topic, partition, minute, series, dead_slot), emitted as rows of
 * summary.FIELDS. The driver's fold (summary.summarize) adds rows of one group from several tasks,
 * so no shuffle is needed: a topic-partition is never split across tasks. Line formats only (otlp
 * keeps the aggregate).
 */
public final class OnePass implements MapPartitionsFunction<Row, Row> {
    private static final long serialVersionUID = 1L;
    public static final String SCHEMA = "topic string, partition int, minute bigint, series string, dead_slot bigint, "
            + "records bigint, log_records bigint, errors bigint, rejected bigint, min_offset bigint, max_offset bigint, "
            + "reject_reason string, raw_value binary, newest_ms bigint";
    private static final int RAW_PREFIX_BYTES = 1024;
    private static final int TOPIC_CHARS = 64;  // dimensions.VALUE_BYTES: Kafka topic names are ASCII

    private final ClassifyLine classifier;
    private final boolean everyLine;
    private final long slots;
    private final Map<String, long[][]> bounds;  // topic -> {firsts, ends} per partition (-1: none)
    private final boolean byTopic;               // GROUP_BY names topic: a series ends with the record's topic

    OnePass(Map<String, String> settings, long slots, Map<String, long[][]> bounds, boolean byTopic) {
        this.classifier = new ClassifyLine(settings);
        this.everyLine = "true".equals(settings.get("COUNT_LINES"));
        this.slots = slots;
        this.bounds = bounds;
        this.byTopic = byTopic;
    }

    /**
     * source: Kafka rows with value, topic, partition, offset[, timestamp]; settings: the classifier's
     * (GROUP_BY without topic); bounds as "topic\tfirst,first,..\tend,end,..\n" lines ("" for none).
     */
    public static Dataset<Row> apply(Dataset<Row> source, Map<String, String> settings, long slots, String bounds,
            boolean byTopic) {
        StructType schema = StructType.fromDDL(SCHEMA);
        boolean timed = java.util.Arrays.asList(source.columns()).contains("timestamp");
        Dataset<Row> read = timed ? source.select("value", "topic", "partition", "offset", "timestamp")
                : source.select("value", "topic", "partition", "offset");
        return read.mapPartitions(new OnePass(settings, slots, parse(bounds), byTopic), Encoders.row(schema));
    }

    static Map<String, long[][]> parse(String text) {
        Map<String, long[][]> found = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            String[] parts = line.split("\t", -1);
            found.put(parts[0], new long[][] {longs(parts[1]), longs(parts[2])});
        }
        return found;
    }

    private static long[] longs(String text) {
        String[] items = text.split(",", -1);
        long[] values = new long[items.length];
        for (int i = 0; i < items.length; i++) {
            values[i] = items[i].isEmpty() ? -1 : Long.parseLong(items[i]);
        }
        return values;
    }

    /** A group's key: partition null (-1) for counted rows inside the bounds, minute/slot null as Long null. */
    private record Key(String topic, Integer partition, Long minute, String series, Long slot) { }

    /** A group's running aggregates. */
    private static final class Group {
        long records, errors, rejected, minOffset = Long.MAX_VALUE, maxOffset = Long.MIN_VALUE, newest = Long.MIN_VALUE;
        long rejectAt = Long.MAX_VALUE;
        String reason;
        byte[] raw;
    }

    @Override
    public Iterator<Row> call(Iterator<Row> rows) {
        Map<Key, Group> groups = new HashMap<>();
        String[] reasons = Outcome.REASONS;
        while (rows.hasNext()) {
            Row row = rows.next();
            byte[] value = row.isNullAt(0) ? null : (byte[]) row.get(0);
            String topic = row.getString(1);
            int partition = row.getInt(2);
            long offset = row.getLong(3);
            Row classified = classifier.call(value);
            long packed = classified.getLong(0);
            int code = (int) (packed & ((1 << Outcome.CODE_BITS) - 1));
            boolean error = code == Outcome.ERROR, line = error || code == Outcome.VALID;
            Long minute = line && (everyLine || error) ? packed >> Outcome.CODE_BITS : null;
            Object labels = classified.get(1);
            String series = labels == null ? null : labels.toString();
            if (byTopic && (everyLine ? line : error)) {  // as classify_stages: concat_ws skips a null series
                String named = topic.length() > TOPIC_CHARS ? topic.substring(0, TOPIC_CHARS) : topic;
                series = series == null ? named : series + Grouping.SEPARATOR + named;
            }
            Long slot = !line && slots > 0 ? Math.floorMod(offset, slots) : null;
            boolean counted = everyLine ? line : error;
            Integer keyPartition = counted && inside(topic, partition, offset) ? null : partition;
            Key key = new Key(topic, keyPartition, minute, series, slot);
            Group group = groups.computeIfAbsent(key, k -> new Group());
            group.records++;
            group.errors += error ? 1 : 0;
            group.minOffset = Math.min(group.minOffset, offset);
            group.maxOffset = Math.max(group.maxOffset, offset);
            if (row.length() > 4 && !row.isNullAt(4)) {
                Object time = row.get(4);  // an Instant with spark.sql.datetime.java8API.enabled
                group.newest = Math.max(group.newest, time instanceof java.time.Instant instant ? instant.toEpochMilli()
                        : ((java.sql.Timestamp) time).getTime());
            }
            if (!line) {
                group.rejected++;
                if (slot != null && offset < group.rejectAt) {
                    group.rejectAt = offset;
                    group.reason = reasons[code];
                    group.raw = value == null ? null : java.util.Arrays.copyOf(value, Math.min(value.length, RAW_PREFIX_BYTES));
                }
            }
        }
        List<Row> out = new ArrayList<>(groups.size());
        for (Map.Entry<Key, Group> entry : groups.entrySet()) {
            Key k = entry.getKey();
            Group g = entry.getValue();
            out.add(RowFactory.create(k.topic(), k.partition(), k.minute(), k.series(), k.slot(), g.records, g.records,
                    k.minute() != null && !everyLine ? g.records : g.errors, g.rejected, g.minOffset, g.maxOffset,
                    g.reason, g.raw, g.newest == Long.MIN_VALUE ? null : g.newest));
        }
        return out.iterator();
    }

    private boolean inside(String topic, int partition, long offset) {
        long[][] range = bounds.get(topic);
        if (range == null || partition >= range[0].length || range[0][partition] < 0 || range[1][partition] < 0) {
            return false;
        }
        return offset >= range[0][partition] && offset < range[1][partition];
    }
}
