"""Which topics a job reads: KAFKA_TOPIC's list or KAFKA_TOPIC_PATTERN, and what Spark is told."""

import re

import pytest

from errorcount.config.load import load_config, topics
from errorcount.errors import ConfigError
from errorcount.kafka.subscription import Subscription, anchored


def test_a_list_is_read_as_written_and_a_pattern_replaces_the_default_topic():
    assert topics(load_config([], {"KAFKA_TOPIC": " logs.a , logs-b,c"})) == ["logs.a", "logs-b", "c"]
    cfg = load_config([], {"KAFKA_TOPIC_PATTERN": r"logs\..*"})
    assert (cfg.kafka_topic, cfg.kafka_topic_pattern, topics(cfg)) == ("", r"logs\..*", [])
    with pytest.raises(ConfigError, match="not both"):
        load_config([], {"KAFKA_TOPIC": "mine", "KAFKA_TOPIC_PATTERN": "logs.*"})
    with pytest.raises(ConfigError, match="names a more than once"):
        load_config([], {"KAFKA_TOPIC": "a,b,a"})
    with pytest.raises(ConfigError, match="KAFKA_TOPIC"):
        load_config([], {"KAFKA_TOPIC": "a,,b"})


def test_a_pattern_matches_whole_names_only():
    # Python's fullmatch stands in for Java's matches() here; Subscription.of compiles Java's.
    compiled = re.compile(r"logs\.[a-z]+")
    pattern = Subscription(pattern=r"logs\.[a-z]+", matches=lambda topic: compiled.fullmatch(topic) is not None)
    assert pattern.current(["logs.search", "logs.pay", "xlogs.pay", "logs.pay.dlq", "other"]) == ["logs.pay", "logs.search"]
    assert "logs.pay" in pattern and "logs.pay.dlq" not in pattern and 7 not in pattern
    # Spark keeps a topic where its regex is *found*: the job anchors it, so Spark reads what the job counts.
    assert pattern.source_options() == {"subscribePattern": r"\A(?:logs\.[a-z]+)\z"}
    assert anchored("a|b") == r"\A(?:a|b)\z"  # the group keeps an alternation inside the anchors
    assert str(pattern) == r"pattern 'logs\\.[a-z]+'"


def test_a_list_subscribes_to_its_names():
    listed = Subscription(["b", "a"])
    assert (listed.current(["x"]), listed.source_options(), "a" in listed, "x" in listed) == (
        ["b", "a"], {"subscribe": "b,a"}, True, False)
