"""The driver's bulk Kafka look-ups (java/errorcount/KafkaOffsets.java through errorcount/kafka/admin.py
and topic_metadata.py) against the real broker, each checked against an independent client:
confluent-kafka's (librdkafka) admin answers for the same topics (tests' errorcount/tools/kafka_admin)."""

from datetime import datetime

import pytest

from errorcount.config.load import load_config
from errorcount.kafka.admin import KafkaAdmin
from errorcount.kafka.client import KafkaClient, TopicMissing
from errorcount.kafka.topic_metadata import describe_topics
from errorcount.offsets import TopicPartition
from errorcount.tools import kafka_admin, produce, samples
from tests.support import unique


@pytest.fixture
def lookups(spark):
    client = KafkaClient.of(load_config([], {"KAFKA_BOOTSTRAP_SERVERS": kafka_admin.bootstrap(), "KAFKA_TOPIC": "any"}))
    admin = KafkaAdmin(spark.sparkContext._jvm, client)
    yield spark.sparkContext._jvm, client, admin
    admin.close()


def test_ids_partitions_and_offsets_of_many_partitions_match_another_client(lookups, make_topic):
    jvm, client, admin = lookups
    narrow, wide = make_topic(3), make_topic(40)
    produce.produce(narrow, samples.generate("app", 30, seed=1, start=datetime(2035, 1, 1), minutes=5), 3)
    produce.produce(wide, samples.generate("app", 200, seed=2, start=datetime(2035, 1, 1), minutes=5), 40)
    kafka_admin.delete_records(wide, {0: 2, 7: 5})  # earliest offsets other than 0
    marks = {topic: kafka_admin.watermarks(topic) for topic in (narrow, wide)}
    missing = unique("missing")

    ids, ends = admin.high_watermarks([narrow, wide, missing])
    assert ids == {narrow: kafka_admin.topic_id(narrow), wide: kafka_admin.topic_id(wide)}  # the missing one left out
    assert ends == {TopicPartition(topic, p): high for topic in marks for p, (_low, high) in marks[topic].items()}
    assert admin.topic_ids([wide, missing]) == {wide: kafka_admin.topic_id(wide), missing: None}

    states = describe_topics(jvm, client, admin, [wide, narrow])
    for topic, state in states.items():
        assert state.topic_id == kafka_admin.topic_id(topic)
        assert state.partitions == sorted(marks[topic])
        assert state.earliest == {p: low for p, (low, _high) in marks[topic].items()}
        assert state.latest == {p: high for p, (_low, high) in marks[topic].items()}
    assert states[wide].earliest[0] == 2 and states[wide].earliest[7] == 5
    with pytest.raises(TopicMissing, match=missing):
        describe_topics(jvm, client, admin, [narrow, missing])

    found = admin.list_offsets({TopicPartition(wide, 0): "earliest", TopicPartition(wide, 7): "latest",
                                TopicPartition(narrow, 1): 0, TopicPartition(narrow, 2): 2**62})
    assert found[TopicPartition(wide, 0)][0] == 2 and found[TopicPartition(wide, 7)][0] == marks[wide][7][1]
    assert found[TopicPartition(narrow, 1)][0] == marks[narrow][1][0]  # the first record at or after time 0
    assert found[TopicPartition(narrow, 2)] == (-1, -1)  # none at or after a time far ahead


def test_group_offsets_written_in_one_call_are_what_kafka_holds(lookups, make_topic):
    _jvm, _client, admin = lookups
    topic, group = make_topic(12), unique("group")
    produce.produce(topic, samples.generate("app", 120, seed=3, start=datetime(2035, 1, 1), minutes=5), 12)
    written = {TopicPartition(topic, p): p for p in range(12)}
    admin.write_group_offsets(group, written, 30)
    assert kafka_admin.group_offsets(group, topic, 12) == {p: p for p in range(12)}
