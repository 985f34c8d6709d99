package errorcount;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.admin.AlterConsumerGroupOffsetsOptions;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The driver's Kafka look-ups over many partitions as one call from Python each (errorcount/kafka/admin.py
 * and topic_metadata.py). Each py4j call costs the driver ~3 ms, and a look-up built from Java objects
 * made and read one per partition took 6.6 s at 2 048 partitions, every few seconds for the end observer.
 * Text in and out: lines of tab-separated fields; topic names hold only [a-zA-Z0-9._-].
 */
public final class KafkaOffsets {
    private KafkaOffsets() {
    }

    /**
     * Each of the newline-separated `topics` as Kafka describes it now: lines "topic\tID\tpartitions"
     * (partitions comma-separated), "topic\t-\t" for a topic that does not exist. Any other failure
     * is thrown.
     */
    public static String describe(Admin admin, String topics, long timeoutMs) throws Exception {
        List<String> names = lines(topics);
        StringBuilder out = new StringBuilder();
        if (names.isEmpty()) {
            return "";
        }
        Map<String, KafkaFuture<TopicDescription>> found = admin.describeTopics(names).topicNameValues();
        for (String name : names) {
            try {
                TopicDescription described = found.get(name).get(timeoutMs, TimeUnit.MILLISECONDS);
                StringBuilder partitions = new StringBuilder();
                described.partitions().forEach(info -> partitions.append(partitions.length() == 0 ? "" : ",")
                        .append(info.partition()));
                out.append(name).append('\t').append(described.topicId()).append('\t').append(partitions).append('\n');
            } catch (ExecutionException error) {
                if (!(error.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw error;
                }
                out.append(name).append("\t-\t\n");
            }
        }
        return out.toString();
    }

    /**
     * Kafka's answer for each request line "topic\tpartition\tspec" (spec: earliest, latest, or a
     * timestamp in ms), read_committed unless `committed` is false: lines
     * "topic\tpartition\toffset\ttimestamp" (-1 each where Kafka has none). One request.
     */
    public static String listOffsets(Admin admin, String request, boolean committed, long timeoutMs) throws Exception {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        for (String line : lines(request)) {
            String[] fields = line.split("\t");
            String spec = fields[2];
            specs.put(new TopicPartition(fields[0], Integer.parseInt(fields[1])),
                    spec.equals("earliest") ? OffsetSpec.earliest()
                            : spec.equals("latest") ? OffsetSpec.latest() : OffsetSpec.forTimestamp(Long.parseLong(spec)));
        }
        if (specs.isEmpty()) {
            return "";
        }
        ListOffsetsOptions options = new ListOffsetsOptions(
                committed ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, ListOffsetsResultInfo> answered =
                admin.listOffsets(specs, options).all().get(timeoutMs, TimeUnit.MILLISECONDS);
        StringBuilder out = new StringBuilder();
        answered.forEach((tp, info) -> out.append(tp.topic()).append('\t').append(tp.partition()).append('\t')
                .append(info.offset()).append('\t').append(info.timestamp()).append('\n'));
        return out.toString();
    }

    /**
     * A consumer's view of the newline-separated `topics`: lines "topic\tpartition\tearliest\tlatest"
     * for every partition (as the consumer's isolation level reads them), a line "topic" alone for a
     * topic without partitions (it vanished while it was read). Two offset requests for all topics.
     */
    public static String consumerOffsets(Consumer<?, ?> consumer, String topics, long timeoutMs) {
        Duration timeout = Duration.ofMillis(timeoutMs);
        Map<String, List<TopicPartition>> byTopic = new TreeMap<>();
        List<TopicPartition> all = new ArrayList<>();
        for (String topic : lines(topics)) {
            List<TopicPartition> partitions = new ArrayList<>();
            List<PartitionInfo> infos = consumer.partitionsFor(topic, timeout);
            if (infos != null) {
                infos.forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
            }
            partitions.sort((a, b) -> Integer.compare(a.partition(), b.partition()));
            byTopic.put(topic, partitions);
            all.addAll(partitions);
        }
        Map<TopicPartition, Long> earliest = all.isEmpty() ? Map.of() : consumer.beginningOffsets(all, timeout);
        Map<TopicPartition, Long> latest = all.isEmpty() ? Map.of() : consumer.endOffsets(all, timeout);
        StringBuilder out = new StringBuilder();
        byTopic.forEach((topic, partitions) -> {
            if (partitions.isEmpty()) {
                out.append(topic).append('\n');
            }
            for (TopicPartition tp : partitions) {
                out.append(topic).append('\t').append(tp.partition()).append('\t').append(earliest.get(tp))
                        .append('\t').append(latest.get(tp)).append('\n');
            }
        });
        return out.toString();
    }

    /** Sets consumer group `group`'s committed offsets to the lines "topic\tpartition\toffset". */
    public static void alterGroupOffsets(Admin admin, String group, String offsets, long timeoutMs) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> values = new HashMap<>();
        for (String line : lines(offsets)) {
            String[] fields = line.split("\t");
            values.put(new TopicPartition(fields[0], Integer.parseInt(fields[1])),
                    new OffsetAndMetadata(Long.parseLong(fields[2])));
        }
        AlterConsumerGroupOffsetsOptions options = new AlterConsumerGroupOffsetsOptions().timeoutMs((int) timeoutMs);
        admin.alterConsumerGroupOffsets(group, values, options).all().get(timeoutMs, TimeUnit.MILLISECONDS);
    }

    private static List<String> lines(String text) {
        List<String> found = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (!line.isEmpty()) {
                found.add(line);
            }
        }
        return found;
    }
}
