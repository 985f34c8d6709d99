package errorcount;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.GenericInternalRow;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * Classify and count in one pass per task (errorcount/pipeline/one_pass.py): each Kafka record of
 * the task is classified (ClassifyLine, or ClassifyOtlp's outcome per log record) and counted into
 * the groups errorcount/pipeline/aggregate.py's batch_summary_df makes (topic, partition, minute,
 * series, dead slot) in the task's GroupTable, emitted as rows of summary.FIELDS; with Kafka
 * timestamps, each reject is also counted per topic and minute of its timestamp (reject_minute). The driver's fold
 * (summary.summarize) adds up rows of one group from several tasks, so no shuffle is needed: Spark's
 * Kafka source never splits a topic-partition across tasks, so each dead slot is picked whole.
 *
 * <p>It reads the source's rows as Spark holds them (InternalRow: the topic's UTF-8 bytes, the
 * timestamp's microseconds), not as Row objects: no String, Timestamp or Row is made per record.
 */
public final class OnePass implements FlatMapFunction<Iterator<InternalRow>, InternalRow> {
    private static final long serialVersionUID = 1L;
    public static final String SCHEMA = "topic string, partition int, minute bigint, series string, dead_slot bigint, "
            + "records bigint, log_records bigint, errors bigint, rejected bigint, min_offset bigint, max_offset bigint, "
            + "reject_reason string, raw_value binary, newest_ms bigint, reject_minute bigint";
    private static final int RAW_PREFIX_BYTES = 1024;  // classify.RAW_PREFIX_BYTES
    private static final int TOPIC_CHARS = 64;  // dimensions.VALUE_BYTES: Kafka topic names are ASCII
    private static final long NO_OUTCOME = Long.MIN_VALUE;  // an OTLP request without log records
    // The series number of a topic's rejects per minute of their Kafka timestamp (rejected_minutes):
    // a group of its own beside the record's, emitted with reject_minute and nothing else counted
    private static final int REJECT_SERIES = -2;
    private static final StructType STRUCT = StructType.fromDDL(SCHEMA);
    private static final byte[][] REASON_BYTES = new byte[Outcome.REASONS.length][];

    static {
        for (int i = 0; i < REASON_BYTES.length; i++) {
            REASON_BYTES[i] = Outcome.REASONS[i] == null ? null : Outcome.REASONS[i].getBytes(StandardCharsets.UTF_8);
        }
    }

    private final ClassifyLine line;  // null with LOG_FORMAT=otlp
    private final ClassifyOtlp otlp;
    private final boolean everyLine;
    private final long slots;
    private final Map<String, long[][]> bounds;  // topic -> {firsts, ends} per partition (-1: none)
    private final boolean byTopic;               // GROUP_BY names topic: a series ends with the record's topic
    private final boolean timed;                 // the rows have a timestamp (column 4)
    private final boolean arrow;                 // a task's groups as one Arrow stream, not a row each

    OnePass(Map<String, String> settings, long slots, Map<String, long[][]> bounds, boolean byTopic, boolean timed,
            boolean arrow) {
        boolean requests = "otlp".equals(settings.get("LOG_FORMAT"));
        this.line = requests ? null : new ClassifyLine(settings);
        this.otlp = requests ? new ClassifyOtlp(settings) : null;
        this.everyLine = "true".equals(settings.get("COUNT_LINES"));
        this.slots = slots;
        this.bounds = bounds;
        this.byTopic = byTopic;
        this.timed = timed;
        this.arrow = arrow;
    }

    /**
     * source: Kafka rows with value, topic, partition, offset[, timestamp]; settings: the classifier's
     * (GROUP_BY without topic: byTopic says); slots: dead-letter slots per partition (0: none);
     * bounds: "topic\tfirst,first,..\tend,end,..\n" per topic, a partition's first offset and end
     * ("" for a partition without) as aggregate._inside reads them. A row per group and task, in
     * SCHEMA's columns (for a caller that filters them in Spark: the recount).
     */
    public static Dataset<Row> apply(Dataset<Row> source, Map<String, String> settings, long slots, String bounds,
            boolean byTopic) {
        return counted(source, settings, slots, bounds, byTopic, false, SCHEMA);
    }

    /** apply's groups as a row per task: one binary column, `arrow`, each task's groups as GroupColumns.arrow's stream. */
    public static Dataset<Row> arrow(Dataset<Row> source, Map<String, String> settings, long slots, String bounds,
            boolean byTopic) {
        return counted(source, settings, slots, bounds, byTopic, true, "arrow binary");
    }

    private static Dataset<Row> counted(Dataset<Row> source, Map<String, String> settings, long slots, String bounds,
            boolean byTopic, boolean arrow, String schema) {
        boolean timed = Arrays.asList(source.columns()).contains("timestamp");
        org.apache.spark.sql.classic.Dataset<Row> read = (org.apache.spark.sql.classic.Dataset<Row>) (timed
                ? source.select("value", "topic", "partition", "offset", "timestamp")
                : source.select("value", "topic", "partition", "offset"));
        OnePass pass = new OnePass(settings, slots, parse(bounds), byTopic, timed, arrow);
        JavaRDD<InternalRow> counted = read.queryExecution().toRdd().toJavaRDD().mapPartitions(pass);
        // The rows as Spark holds them: no Row made and converted per group (Scala's private[sql] is public in bytecode)
        return read.sparkSession().internalCreateDataFrame(counted.rdd(), StructType.fromDDL(schema), false);
    }

    static Map<String, long[][]> parse(String text) {
        Map<String, long[][]> found = new HashMap<>();
        for (String entry : text.split("\n")) {
            if (!entry.isEmpty()) {
                String[] parts = entry.split("\t", -1);
                found.put(parts[0], new long[][] {longs(parts[1]), longs(parts[2])});
            }
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

    /** The task's state: its groups and the dictionaries their topic and series numbers index. */
    private final class Task {
        final GroupTable groups = new GroupTable();
        final LineCounts lines = new LineCounts();  // the groups of lines inside their partition's bounds
        final Map<UTF8String, Integer> topicIds = new HashMap<>();
        final List<String> topics = new ArrayList<>();
        UTF8String lastTopic;  // a task reads a partition's records one after another: mostly one look-up
        int lastTopicId = -1;
        final SeriesIds seriesIds = new SeriesIds();
        final Labels labels = new Labels();         // the record's, as its contract found them
        final SeriesBuffer series = new SeriesBuffer();  // the record's series, when it has one
        final List<byte[]> topicLabels = new ArrayList<>();  // a topic as a series value (byTopic)
        final List<long[][]> topicBounds = new ArrayList<>();

        /** The topic's number; `topic` may be a view of the source's row buffer (copied when kept). */
        int topicId(UTF8String topic) {
            if (topic.equals(lastTopic)) {
                return lastTopicId;
            }
            Integer id = topicIds.get(topic);
            if (id == null) {
                String name = topic.toString();
                id = topics.size();
                topicIds.put(topic.clone(), id);
                topics.add(name);
                topicBounds.add(bounds.get(name));
                topicLabels.add((name.length() > TOPIC_CHARS ? name.substring(0, TOPIC_CHARS) : name).getBytes(StandardCharsets.UTF_8));
            }
            lastTopic = topic.clone();
            lastTopicId = id;
            return id;
        }

        /**
         * The series number of a record whose series is in `series` (`named`; else it has none), or
         * NONE; as classify_stages, GROUP_BY's topic is appended to a counted record's (concat_ws
         * skips a null series).
         */
        int seriesId(boolean named, boolean counted, int topicId) {
            if (byTopic && counted) {
                if (named) {
                    series.write((byte) Grouping.SEPARATOR);
                } else {
                    series.reset();
                }
                series.write(topicLabels.get(topicId));
                return seriesIds.id(series);
            }
            return named ? seriesIds.id(series) : GroupTable.NONE;
        }

        /**
         * One outcome (a record's, or one of an OTLP request's log records; NO_OUTCOME: none) counted
         * into its group; `named`: its series is in `series`.
         */
        void count(long packed, boolean named, byte[] value, int topicId, int partition, long offset, long newest,
                boolean first, boolean logRecord) {
            int code = packed == NO_OUTCOME ? NONE_CODE : (int) (packed & ((1 << Outcome.CODE_BITS) - 1));
            boolean error = code == Outcome.ERROR, isLine = error || code == Outcome.VALID;
            boolean rejected = !isLine && code != NONE_CODE;
            boolean counted = everyLine ? isLine : error;
            long minute = counted ? packed >> Outcome.CODE_BITS : GroupTable.NO_LONG;
            long slot = rejected && slots > 0 ? Math.floorMod(offset, slots) : GroupTable.NO_LONG;
            int keyPartition = counted && inside(topicBounds.get(topicId), partition, offset) ? GroupTable.NONE : partition;
            int seriesId = seriesId(named, counted, topicId);
            if (counted && keyPartition == GroupTable.NONE && first && logRecord
                    && lines.count(topicId, minute, seriesId, error, newest)) {
                return;
            }
            GroupTable t = groups;
            int g = t.find(topicId, keyPartition, minute, seriesId, slot);
            t.count(g, first, logRecord, error, offset, newest);
            if (rejected) {
                t.reject(g, offset, slot != GroupTable.NO_LONG, code, value, RAW_PREFIX_BYTES);
                if (newest != GroupTable.NO_LONG) {  // floor, as the minute of a negative time is too
                    int r = t.find(topicId, GroupTable.NONE, Math.floorDiv(newest, 60_000L), REJECT_SERIES, GroupTable.NO_LONG);
                    t.reject(r, offset, false, code, null, 0);
                }
            }
        }

        /** The task's groups, a row each, in SCHEMA's columns. */
        GroupColumns columns() {
            GroupTable t = groups;
            lines.drain(t);
            byte[][] topicNames = new byte[topics.size()][];
            for (int i = 0; i < topicNames.length; i++) {
                topicNames[i] = topics.get(i).getBytes(StandardCharsets.UTF_8);
            }
            int n = t.size;
            byte[][] topic = new byte[n][], series = new byte[n][], reason = new byte[n][], raw = new byte[n][];
            int[] partition = new int[n];
            long[] minute = new long[n], slot = new long[n], records = new long[n], logRecords = new long[n],
                    errors = new long[n], rejected = new long[n], minOffset = new long[n], maxOffset = new long[n],
                    newest = new long[n], rejectMinute = new long[n];
            for (int g = 0; g < n; g++) {
                boolean perMinute = t.series(g) == REJECT_SERIES;
                topic[g] = topicNames[t.topic(g)];
                partition[g] = t.partition(g);
                minute[g] = perMinute ? GroupTable.NO_LONG : t.get(g, GroupTable.MINUTE);
                series[g] = t.series(g) < 0 ? null : seriesIds.bytes(t.series(g));
                slot[g] = t.get(g, GroupTable.SLOT);
                records[g] = t.get(g, GroupTable.RECORDS);
                logRecords[g] = t.get(g, GroupTable.LOG_RECORDS);
                errors[g] = t.get(g, GroupTable.ERRORS);
                rejected[g] = t.get(g, GroupTable.REJECTED);
                minOffset[g] = t.get(g, GroupTable.MIN_OFFSET);
                maxOffset[g] = t.get(g, GroupTable.MAX_OFFSET);
                reason[g] = t.reason(g) == GroupTable.NONE ? null : REASON_BYTES[t.reason(g)];
                raw[g] = t.raw(g);
                newest[g] = t.get(g, GroupTable.NEWEST);
                rejectMinute[g] = perMinute ? t.get(g, GroupTable.MINUTE) : GroupTable.NO_LONG;
            }
            return new GroupColumns(STRUCT, new Object[] {topic, partition, minute, series, slot, records, logRecords, errors,
                    rejected, minOffset, maxOffset, reason, raw, newest, rejectMinute}, n);
        }
    }

    private static final int NONE_CODE = -1;  // no outcome: an OTLP request without log records

    @Override
    public Iterator<InternalRow> call(Iterator<InternalRow> rows) {
        Task task = new Task();
        while (rows.hasNext()) {
            InternalRow row = rows.next();
            byte[] value = row.isNullAt(0) ? null : row.getBinary(0);  // a copy: the row's buffer is reused
            int topicId = task.topicId(row.getUTF8String(1));
            int partition = row.getInt(2);
            long offset = row.getLong(3);
            // microseconds since the epoch, as unix_millis floors them
            long newest = timed && !row.isNullAt(4) ? Math.floorDiv(row.getLong(4), 1000L) : GroupTable.NO_LONG;
            if (line != null) {
                long packed = line.classify(value, task.labels, task.series);
                task.count(packed, line.labelled(packed), value, topicId, partition, offset, newest, true, true);
                continue;
            }
            List<Row> outcomes = otlp.call(value);
            if (outcomes.isEmpty()) {
                task.count(NO_OUTCOME, false, value, topicId, partition, offset, newest, true, false);
            }
            for (int i = 0; i < outcomes.size(); i++) {
                Row outcome = outcomes.get(i);
                long packed = outcome.getLong(0);
                UTF8String named = (UTF8String) outcome.get(1);
                if (named != null) {
                    task.series.reset();
                    task.series.write(named.getBytes());
                }
                boolean whole = (packed & 15) == Outcome.NULL_VALUE || (packed & 15) == Outcome.BAD_OTLP;
                task.count(packed, named != null, value, topicId, partition, offset, newest, i == 0, !whole);
            }
        }
        GroupColumns groups = task.columns();
        return arrow ? List.<InternalRow>of(new GenericInternalRow(new Object[] {groups.arrow()})).iterator() : groups.rows();
    }

    private static boolean inside(long[][] range, int partition, long offset) {
        if (range == null || partition >= range[0].length || range[0][partition] < 0 || range[1][partition] < 0) {
            return false;
        }
        return offset >= range[0][partition] && offset < range[1][partition];
    }
}
