"""A driver killed in the middle of a batch over several topics (test-only hook ERRORCOUNT_FAULT):
MySQL holds exactly the records below each topic's stored offsets, per topic and per series, and a
restart finishes exact."""

from collections import Counter
from datetime import datetime

import pytest

from errorcount.tools import kafka_admin, samples
from tests.support import Produced, error_log, ledger, series_counts, stored_offsets, unique, wait_until

START = datetime(2033, 9, 1, 8, 0)
SIGKILLED = 128 + 9
# MariaDB only: what this tests is Kafka's and the classifier's side; every statement it makes
# runs on MySQL 8 too (test_sql_warnings, test_store_edges), docs/testing.md.
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("point", ["before_commit@2", "during_spark_job@3"])
def test_a_crash_in_a_batch_of_several_topics_then_a_restart_is_exact(point, clean_error_log, make_topic, start_driver,
                                                                      tmp_path):
    admin, job = clean_error_log, unique("job")
    produced = {topic: Produced(topic) for topic in (make_topic(partitions=2), make_topic(partitions=3))}
    for number, written in enumerate(produced.values()):
        written.add(samples.generate("app", 900 + 300 * number, seed=61 + number, start=START, minutes=20))
    env = {"TMPDIR": str(tmp_path), "MAX_OFFSETS_PER_TRIGGER": "500", "GROUP_BY": "level,topic"}
    topics = ",".join(produced)

    def expected_below(stored: dict[str, dict[int, int]] | None) -> tuple[Counter, Counter]:
        counts, series = Counter(), Counter()
        for topic, written in produced.items():
            counts.update(written.counts_below(stored[topic]) if stored else written.total())
            series.update({(minute, (level, topic)): n for (minute, (level,)), n in
                           written.series_below(stored[topic] if stored else None, "level").items()})
        return counts, series

    crashing = start_driver(job, topics, env={"ERRORCOUNT_FAULT": point, **env})
    assert crashing.wait(240) == SIGKILLED, crashing.log()[-3000:]
    stored = {topic: stored_offsets(admin, job, topic) for topic in produced}
    assert any(stored.values())  # a batch over both topics was committed before the crash
    counts, series = expected_below(stored)
    assert error_log(admin) == counts  # nothing of the killed batch, on either topic
    assert series_counts(admin, job, "level,topic") == series
    assert ledger(admin, job)[1] == sum(sum(found.values()) for found in stored.values())

    restarted = start_driver(job, topics, env=env)
    wait_until(lambda: restarted.check_alive() or all(
        stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic) for topic in produced), 240,
        "the restarted job to catch up on both topics")
    counts, series = expected_below(None)
    assert error_log(admin) == counts
    assert series_counts(admin, job, "level,topic") == series
    assert ledger(admin, job)[1] == 900 + 1200
    assert restarted.stop() == 0
