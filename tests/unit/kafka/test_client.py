"""Kafka security options, given once, reach every client of the driver: the metadata consumer
(read_committed) and the one admin client (no consumer setting); plain values, no client opened."""

from errorcount.config.load import load_config
from errorcount.kafka.client import KafkaClient

SASL_ENV = {
    "KAFKA_BOOTSTRAP_SERVERS": "broker-1:9093,broker-2:9093",
    "KAFKA_OPT_SECURITY_PROTOCOL": "SASL_SSL",
    "KAFKA_OPT_SASL_MECHANISM": "SCRAM-SHA-512",
    "KAFKA_OPT_SASL_JAAS_CONFIG": 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";',
    "KAFKA_OPT_SSL_TRUSTSTORE_PASSWORD": "changeit",
}


def test_the_same_options_reach_the_metadata_consumer_and_the_admin_client():
    client = KafkaClient.of(load_config([], {**SASL_ENV, "KAFKA_OPT_ISOLATION_LEVEL": "read_committed"}))
    options = client.consumer_properties()
    assert options["security.protocol"] == "SASL_SSL"
    assert options["isolation.level"] == "read_committed"  # a partition's end is its last stable offset
    assert options["sasl.jaas.config"].startswith("org.apache.kafka.common.security.scram")
    assert options["bootstrap.servers"] == "broker-1:9093,broker-2:9093"
    admin = client.properties()
    assert {name: admin[name] for name in ("security.protocol", "sasl.mechanism", "sasl.jaas.config",
                                           "bootstrap.servers")} == {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": SASL_ENV["KAFKA_OPT_SASL_JAAS_CONFIG"], "bootstrap.servers": "broker-1:9093,broker-2:9093"}
    assert "isolation.level" not in admin  # a consumer's setting: an admin client warns about it


def test_an_unreachable_broker_is_named_with_what_to_check():
    client = KafkaClient.of(load_config([], {"KAFKA_BOOTSTRAP_SERVERS": "kafka-9:9092", "KAFKA_TOPIC": "logs",
                                             "KAFKA_TIMEOUT": "7"}))
    message = str(client.unavailable(TimeoutError("Timed out waiting for a node assignment")))
    assert message.startswith("cannot read metadata of topic(s) 'logs' from kafka-9:9092 within 7 s")
    assert "KAFKA_BOOTSTRAP_SERVERS" in message and "Timed out waiting" in message
