"""Spark's Kafka source gets the job's client options (security included), read_committed, the
start it is given and MAX_OFFSETS_PER_TRIGGER only when set."""

from errorcount.config.load import load_config
from errorcount.kafka.client import KafkaClient
from errorcount.kafka.subscription import Subscription
from errorcount.pipeline.source import source_options
from tests.unit.kafka.test_client import SASL_ENV  # the same security options as every client


def test_sasl_ssl_options_reach_the_spark_source(tmp_path):
    conf = tmp_path / "c.conf"
    conf.write_text("kafka.ssl.truststore.location = /etc/kafka/truststore.jks\nMAX_OFFSETS_PER_TRIGGER = 0\n")
    cfg = load_config(["--config", str(conf)], SASL_ENV)
    options = source_options(KafkaClient.of(cfg), Subscription(["t"]), '{"t":{"0":-2}}', cfg.max_offsets_per_trigger)
    assert options["kafka.security.protocol"] == "SASL_SSL"
    assert options["kafka.isolation.level"] == "read_committed"  # aborted and open transactions never read
    assert options["kafka.sasl.mechanism"] == "SCRAM-SHA-512"
    assert options["kafka.sasl.jaas.config"] == SASL_ENV["KAFKA_OPT_SASL_JAAS_CONFIG"]
    assert options["kafka.ssl.truststore.password"] == "changeit"
    assert options["kafka.ssl.truststore.location"] == "/etc/kafka/truststore.jks"
    assert options["kafka.bootstrap.servers"] == "broker-1:9093,broker-2:9093"
    assert options["startingOffsets"] == '{"t":{"0":-2}}' and options["failOnDataLoss"] == "true"
    assert options["subscribe"] == "t"
    assert "maxOffsetsPerTrigger" not in options  # 0 means no limit


def test_a_trigger_limit_and_the_user_s_own_kafka_options_win():
    cfg = load_config([], {"MAX_OFFSETS_PER_TRIGGER": "5000", "KAFKA_OPT_MAX_POLL_RECORDS": "500"})
    options = source_options(KafkaClient.of(cfg), Subscription(pattern="logs\\..*"), "earliest", cfg.max_offsets_per_trigger)
    assert options["maxOffsetsPerTrigger"] == "5000"
    assert options["kafka.max.poll.records"] == "500"
    assert "subscribe" not in options and options["subscribePattern"].endswith("\\z")


def test_the_reader_s_consumers_register_no_metrics_unless_the_user_asks():
    plain = source_options(KafkaClient.of(load_config([], {})), Subscription(["t"]), "earliest")
    assert plain["kafka.auto.include.jmx.reporter"] == "false" and plain["kafka.enable.metrics.push"] == "false"
    cfg = load_config([], {"KAFKA_OPT_AUTO_INCLUDE_JMX_REPORTER": "true"})
    assert source_options(KafkaClient.of(cfg), Subscription(["t"]), "earliest")["kafka.auto.include.jmx.reporter"] == "true"
