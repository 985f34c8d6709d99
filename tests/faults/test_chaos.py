"""A short `make chaos`: SIGKILLs of the driver and of the SQL server under a steady producer, then
exact counts, lines (COUNT_LINES), per-dimension counts (json events, GROUP_BY=field:service.name,level)
and offsets, over three topics read through one KAFKA_TOPIC_PATTERN; counted_through checked after
every batch."""

import pytest

from tests.chaos import run as chaos

pytestmark = pytest.mark.slow


def test_random_kills_under_load_lose_and_double_nothing(admin):
    figures = chaos.run(lines=20_000, partitions=2, kills=4, rate=300, seed=7, topics=3)
    print(chaos.table(figures))
    assert figures["kills"] == 4 == sum(figures["phases"].values()) and figures["topics"] == 3
    assert figures["driver_kills"] > 0 and figures["server_kills"] > 0
    assert (figures["lost"], figures["doubled"]) == (0, 0)
    assert (figures["series_lost"], figures["series_doubled"], figures["series_add_up"]) == (0, 0, True)
    assert (figures["lines_lost"], figures["lines_doubled"]) == (0, 0)
    assert figures["through_ahead"] == 0, figures["through_ahead_examples"]
    assert figures["through_checks"] > 0
    assert figures["series"] > 10
    assert figures["offsets_exact"]
    assert figures["ledger_records"] == 20_000
    assert figures["ledger_rejected"] == figures["rejected_lines"]
    assert figures["final_exit"] == 0


@pytest.mark.mysql
def test_otlp_requests_killed_anywhere_count_each_log_record_once(admin):
    """LOG_FORMAT=otlp (requests of many log records, both encodings): a batch ends between Kafka
    records, never inside one (Spark's offsets count records, and a request's log records are
    exploded from its one row inside the batch that read it), so a kill loses or doubles no log
    record either."""
    figures = chaos.run(lines=1_500, partitions=2, kills=3, rate=60, seed=45, topics=1, log_format="otlp")
    print(chaos.table(figures))
    assert figures["kills"] == 3 and (figures["lost"], figures["doubled"]) == (0, 0)
    assert (figures["series_lost"], figures["series_doubled"], figures["series_add_up"]) == (0, 0, True)
    assert (figures["lines_lost"], figures["lines_doubled"]) == (0, 0)
    assert figures["ledger_records"] == 1_500 and figures["ledger_log_records"] == figures["log_records"] > 10_000
    assert figures["ledger_rejected"] == figures["rejected_lines"] > 0
    assert figures["offsets_exact"] and figures["through_ahead"] == 0 and figures["final_exit"] == 0
