import os
import socket
import subprocess
import sys

from confluent_kafka import KafkaError, KafkaException

from errorcount.errors import EXIT_UNAVAILABLE
from errorcount.tools.kafka_admin import leaderless


def test_a_partition_without_a_known_leader_is_asked_again_and_other_errors_are_not():
    assert leaderless(KafkaException(KafkaError(KafkaError.NOT_LEADER_FOR_PARTITION)))
    assert leaderless(KafkaException(KafkaError(KafkaError.LEADER_NOT_AVAILABLE)))
    assert leaderless(KafkaException(KafkaError(KafkaError.UNKNOWN_LEADER_EPOCH)))  # just after a broker restart
    assert leaderless(KafkaException(KafkaError(KafkaError._TRANSPORT, retriable=True)))
    assert not leaderless(KafkaException(KafkaError(KafkaError.UNKNOWN_TOPIC_OR_PART)))
    assert not leaderless(KafkaException(KafkaError(KafkaError.TOPIC_AUTHORIZATION_FAILED)))
    assert not leaderless(KafkaException("not a KafkaError"))


def test_a_broker_that_does_not_answer_is_one_line_and_exit_5_not_a_traceback():
    """make run / topic / produce create the topic first through this CLI: a broker that is down
    (here: a port nothing listens on) printed a traceback under ~200 lines of librdkafka's log."""
    with socket.socket() as probe:  # a port that was free a moment ago: connecting is refused
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run([sys.executable, "-m", "errorcount.tools.kafka_admin", "create-topic", "some-topic", "2"],
                          env={**os.environ, "KAFKA_BOOTSTRAP_SERVERS": f"127.0.0.1:{port}"},
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == EXIT_UNAVAILABLE, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert f"Kafka at 127.0.0.1:{port} did not answer" in lines[0] and "KAFKA_BOOTSTRAP_SERVERS" in lines[0]
