"""Small Kafka admin CLI for the stack scripts and the tests (confluent-kafka, no Spark).

    kafka_admin.py ready                      exit 0 when the broker answers metadata
    kafka_admin.py create-topic NAME [N]      create NAME with N partitions if missing
    kafka_admin.py add-partitions NAME N      grow NAME to N partitions
    kafka_admin.py end-offsets NAME           print {"partition": next offset} as JSON
"""

import json
import os
import sys
import time

from confluent_kafka import ConsumerGroupTopicPartitions, KafkaError, KafkaException, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient, NewPartitions, NewTopic, OffsetSpec

from errorcount.errors import EXIT_UNAVAILABLE


def bootstrap() -> str:
    return os.environ.get("KAFKA_BOOTSTRAP_SERVERS") or f"127.0.0.1:{os.environ.get('KAFKA_PORT', '9092')}"


# librdkafka logs every failed connect (~20 lines a second against a broker that is down); the
# commands report a broker that does not answer once, themselves (main)
QUIET = {"log_level": 2}


def admin() -> AdminClient:
    return AdminClient({"bootstrap.servers": bootstrap(), **QUIET})


def is_ready(timeout: float = 3.0) -> bool:
    try:
        return bool(admin().list_topics(timeout=timeout).brokers)
    except Exception:
        return False


def partition_count(topic: str, client: AdminClient | None = None) -> int:
    meta = (client or admin()).list_topics(topic=topic, timeout=10)
    info = meta.topics.get(topic)
    return 0 if info is None or info.error is not None else len(info.partitions)


def await_partitions(client: AdminClient, topic: str, total: int, timeout: float = 30.0) -> None:
    """Polls metadata until the topic shows `total` partitions: the admin future completes when
    the controller has the change, and a broker's metadata cache may lag it (a producer asking
    in that gap sees no partitions)."""
    deadline = time.monotonic() + timeout
    while (seen := partition_count(topic, client)) < total:
        if time.monotonic() > deadline:
            raise RuntimeError(f"topic {topic} shows {seen} of {total} partitions after {timeout:.0f} s; "
                               "check the broker log (.local/kafka) for metadata errors")
        time.sleep(0.05)


def create_topic(topic: str, partitions: int) -> bool:
    """Creates the topic if missing and waits until its metadata is visible; returns True if
    it was created."""
    return bool(create_topics({topic: partitions}))


def create_topics(partitions_of: dict[str, int]) -> list[str]:
    """Creates each missing topic with its number of partitions in one request and waits until
    each one's metadata is visible; returns the topics it created."""
    client = admin()  # must outlive the futures
    missing = [topic for topic in partitions_of if not partition_count(topic, client)]
    if not missing:
        return []
    futures = client.create_topics([NewTopic(topic, num_partitions=partitions_of[topic], replication_factor=1)
                                    for topic in missing])
    for topic in missing:
        futures[topic].result(timeout=30)
    for topic in missing:
        await_partitions(client, topic, partitions_of[topic])
    return missing


def add_partitions(topic: str, total: int) -> None:
    client = admin()  # must outlive the future
    client.create_partitions([NewPartitions(topic, total)])[topic].result(timeout=30)
    await_partitions(client, topic, total)


def delete_topic(topic: str) -> None:
    client = admin()  # must outlive the future
    client.delete_topics([topic], operation_timeout=30)[topic].result(timeout=30)


def delete_topic_if_exists(topic: str) -> None:
    if partition_count(topic):
        delete_topic(topic)


def recreate_topic(topic: str, partitions: int, timeout: float = 60.0) -> None:
    """Deletes the topic and creates it again under the same name (a new topic ID, offsets from 0),
    waiting out the broker's asynchronous deletion."""
    delete_topic(topic)
    deadline = time.monotonic() + timeout
    while True:
        try:
            if create_topic(topic, partitions):
                return
        except KafkaException as error:  # still marked for deletion
            if time.monotonic() > deadline:
                raise RuntimeError(f"topic {topic} could not be created again within {timeout:.0f} s: {error}") from None
        time.sleep(0.2)


def topic_id(topic: str) -> str:
    """Kafka's ID of the topic as the Java client writes it (what the job stores with its offsets):
    base64url, where librdkafka prints standard base64."""
    client = admin()  # must outlive the future
    description = client.describe_topics(TopicCollection([topic]))[topic].result(timeout=30)
    return str(description.topic_id).replace("+", "-").replace("/", "_")


def delete_records(topic: str, before: dict[int, int]) -> None:
    """What retention does: deletes records below the given offset of each partition."""
    client = admin()  # must outlive the futures
    futures = client.delete_records([TopicPartition(topic, p, o) for p, o in before.items()])
    for future in futures.values():
        future.result(timeout=30)


def watermarks(topic: str, timeout: float = 30) -> dict[int, tuple[int, int]]:
    """(first offset, next offset to be written) per partition, read_uncommitted (the high
    watermark), in two admin requests whatever the partitions (a consumer's watermark call per
    partition took two round trips each: seconds at 512 partitions). A retriable error (a partition
    whose leader the broker does not know yet: just after the topic was created or the broker
    restarted) is asked again until `timeout`."""
    client = admin()  # must outlive the futures
    deadline = time.monotonic() + timeout
    partitions = [TopicPartition(topic, partition) for partition in range(partition_count(topic, client))]
    while partitions:
        try:
            low, high = ({tp.partition: future.result(timeout=10).offset for tp, future in
                          client.list_offsets({tp: spec for tp in partitions}, request_timeout=10).items()}
                         for spec in (OffsetSpec.earliest(), OffsetSpec.latest()))
            return {partition: (low[partition], high[partition]) for partition in sorted(low)}
        except KafkaException as error:
            if not leaderless(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.2)
    return {}


def leaderless(error: KafkaException) -> bool:
    """The broker does not know the partition's leader yet (or says it is not the leader, or that
    the leader's epoch is newer than its own: just after a restart, which librdkafka does not mark
    retriable): ask again."""
    found = error.args[0] if error.args else None
    return isinstance(found, KafkaError) and (found.retriable() or found.code() in (
        KafkaError.NOT_LEADER_FOR_PARTITION, KafkaError.LEADER_NOT_AVAILABLE, KafkaError.UNKNOWN_LEADER_EPOCH,
        KafkaError.FENCED_LEADER_EPOCH))


def earliest_offsets(topic: str) -> dict[int, int]:
    return {partition: low for partition, (low, _high) in watermarks(topic).items()}


def group_offsets(group: str, topic: str, partitions: int) -> dict[int, int]:
    """A consumer group's committed offsets through Kafka's admin API."""
    request = [ConsumerGroupTopicPartitions(group, [TopicPartition(topic, p) for p in range(partitions)])]
    client = admin()  # referenced until the answer is in: a collected client drops its futures
    result = client.list_consumer_group_offsets(request)[group].result(timeout=30)
    return {tp.partition: tp.offset for tp in result.topic_partitions if tp.offset >= 0}


def end_offsets(topic: str) -> dict[int, int]:
    """The next offset to be written, per partition (what a caught-up job has stored)."""
    return {partition: high for partition, (_low, high) in watermarks(topic).items()}


def main(argv: list[str] | None = None) -> int:
    """Runs the command; a broker that does not answer (down, hung, a wrong address) is one line
    saying where and what to check, and exit 5 (the job's 'unreachable'), not a traceback."""
    argv = sys.argv[1:] if argv is None else argv
    try:
        return run_command(argv)
    except (KafkaException, RuntimeError) as error:
        said = error.args[0] if error.args else error
        reason = said.str() if isinstance(said, KafkaError) else str(said)  # KafkaError's own words, not its repr
        print(f"kafka_admin {' '.join(argv[:2])}: Kafka at {bootstrap()} did not answer ({reason}); check that the "
              "broker is up (make up starts the local one) and KAFKA_BOOTSTRAP_SERVERS", file=sys.stderr)
        return EXIT_UNAVAILABLE


def run_command(argv: list[str]) -> int:
    command, args = (argv[0], argv[1:]) if argv else ("", [])
    if command == "ready":
        return 0 if is_ready() else 1
    if command == "create-topic" and args:
        partitions = int(args[1]) if len(args) > 1 else 3
        created = create_topic(args[0], partitions)
        print(f"topic {args[0]} {'created' if created else 'exists'} ({partition_count(args[0])} partitions)")
        return 0
    if command == "add-partitions" and len(args) == 2:
        add_partitions(args[0], int(args[1]))
        return 0
    if command == "end-offsets" and args:
        print(json.dumps(end_offsets(args[0])))
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
