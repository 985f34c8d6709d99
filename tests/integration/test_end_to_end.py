"""The job against the real broker and MariaDB: exact counts, exact offsets, exact resumption."""

import signal
from datetime import datetime

import pytest

from errorcount.observe import logline
from errorcount.tools import kafka_admin, produce, samples
from tests.support import catch_up, error_log, stored_offsets, unique

START = datetime(2031, 5, 6, 23, 40)  # crosses midnight, so minute keys span two dates
pytestmark = pytest.mark.slow


def batch_plans(log: str) -> list[tuple[int, int, str]]:
    """(batch id, records, plan) of each committed batch."""
    return [(r.number, r.integer("records"), r.fields["plan"]) for r in logline.parse(log)]


def batch_records(log: str) -> int:
    return sum(records for _, records, _ in batch_plans(log))


@pytest.mark.mysql
def test_counts_exactly_and_resumes_after_restart(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=4), unique("job")
    first = samples.generate("app", 3000, seed=11, start=START, minutes=40)
    produce.produce(topic, first)

    # Small batches, so offsets are committed many times per run.
    driver = start_driver(job, topic, env={"MAX_OFFSETS_PER_TRIGGER": "700", "SINGLE_TASK_MAX_RECORDS": "700"})
    catch_up(admin, job, topic, driver, "the first run to catch up")
    assert error_log(admin) == samples.expected_counts(first)
    assert stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic)
    driver.process.send_signal(signal.SIGHUP)  # its terminal closed: a stop, as SIGTERM is
    assert driver.wait(60) == 0, driver.log()[-3000:]
    assert batch_records(driver.log()) == 3000
    assert "stopped cleanly at a batch boundary" in driver.log()
    # STARTING_OFFSETS is resolved to numbers and stored before the query starts, so even the first
    # batch's size is known ahead from Spark's offset log: at most 700 records, one task each.
    plans = batch_plans(driver.log())
    assert plans[0][0] == 0
    assert len(plans) > 2 and all(plan == "one-task" for _, _, plan in plans), plans

    second = samples.generate("app", 2000, seed=12, start=START, minutes=40)  # the same minutes again
    produce.produce(topic, second)
    # Through `make run` this time, stopped by SIGTERM to its whole process group (systemd's default
    # stop, kill -- -PGID): the JVM ignores it; the driver gets it directly, through run.sh, and once
    # more through make, which passes SIGTERM on to its recipe: one request, a stop at a batch
    # boundary, the job's exit 0; make itself then dies of the signal, as make does.
    restarted = start_driver(job, topic, env={"SINGLE_TASK_MAX_RECORDS": "1999"}, command=["make", "run"])
    catch_up(admin, job, topic, restarted, "the restarted run to catch up")
    assert error_log(admin) == samples.expected_counts(first + second)
    assert stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic)
    assert restarted.stop_group() == -signal.SIGTERM, restarted.log()[-3000:]
    assert "stopped cleanly at a batch boundary" in restarted.log()
    assert "[run.sh] the job exited 0 " in restarted.log() and "make: ***" not in restarted.log()
    assert "SIGTERM also received" in restarted.log() and "second stop signal" not in restarted.log()
    assert batch_records(restarted.log()) == 2000  # nothing of the first run was read again
    # Resumed from stored offsets, the first batch's size is known: 2000 > 1999 runs in parallel.
    assert batch_plans(restarted.log()) == [(0, 2000, "parallel")]


# The two refusals below run on MariaDB only: both stop the driver before its first statement that
# another one does not make on both servers (the session's checkpoint check; the topic lookup).
def test_refuses_a_configured_checkpoint_location(clean_error_log, make_topic, start_driver):
    topic = make_topic(partitions=1)
    produce.produce(topic, samples.generate("app", 10, seed=1, start=START, minutes=1))
    driver = start_driver(unique("job"), topic,
                          # quoted as in a shell (scripts/lib.sh): split at blanks, Spark would get "not" as the application
                          env={"SPARK_SUBMIT_EXTRA": "--conf 'spark.sql.streaming.checkpointLocation=/tmp/should not be used'"})
    assert driver.wait(120) == 2
    assert "spark.sql.streaming.checkpointLocation is set" in driver.log()
    assert error_log(clean_error_log) == {}


def test_missing_topic_is_a_config_error(clean_error_log, start_driver):
    driver = start_driver(unique("job"), unique("no-such-topic"), create_topic=False)
    assert driver.wait(120) == 2
    assert "does not exist" in driver.log()
