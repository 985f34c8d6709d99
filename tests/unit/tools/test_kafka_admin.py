from confluent_kafka import KafkaError, KafkaException

from errorcount.tools.kafka_admin import leaderless


def test_a_partition_without_a_known_leader_is_asked_again_and_other_errors_are_not():
    assert leaderless(KafkaException(KafkaError(KafkaError.NOT_LEADER_FOR_PARTITION)))
    assert leaderless(KafkaException(KafkaError(KafkaError.LEADER_NOT_AVAILABLE)))
    assert leaderless(KafkaException(KafkaError(KafkaError._TRANSPORT, retriable=True)))
    assert not leaderless(KafkaException(KafkaError(KafkaError.UNKNOWN_TOPIC_OR_PART)))
    assert not leaderless(KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)))
    assert not leaderless(KafkaException("not a KafkaError"))
