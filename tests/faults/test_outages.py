"""MySQL and Kafka go away under a running job: it waits inside the same driver and stays exact."""

import time
from datetime import datetime

import kafka_admin
import produce
import pytest

from app.errors import EXIT_UNAVAILABLE
from tests.support import Produced, catch_up, error_log, ledger, service, stored_offsets, unique, wait_until

START = datetime(2034, 3, 3, 3, 0)
OUTAGE_SECONDS = 30  # the length of the fault being simulated, not a synchronisation
pytestmark = pytest.mark.slow


def log_lines(driver, text: str) -> int:
    return driver.log().count(text)


def test_mysql_outage_is_retried_inside_the_running_driver(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=3), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(1000, seed=41, start=START, minutes=10))
    driver = start_driver(job, topic)
    catch_up(admin, job, topic, driver)

    service("mariadb.sh", "stop")
    try:
        produced.add(produce.generate(1000, seed=42, start=START, minutes=10))
        wait_until(lambda: "retry" in driver.log(), 60, "the driver to retry its commit")
        time.sleep(OUTAGE_SECONDS)
        assert driver.running()
    finally:
        service("mariadb.sh", "start")
    catch_up(admin, job, topic, driver, "the job to catch up after the outage")
    assert error_log(admin) == produced.total()
    assert ledger(admin, job)[1] == 2000
    assert log_lines(driver, "epoch") == 1  # the same driver and query all along: no restart
    assert driver.stop() == 0


def test_mysql_away_past_the_deadline_exits_unavailable(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=2), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(500, seed=43, start=START, minutes=10))
    driver = start_driver(job, topic, env={"RETRY_SECONDS": "8"})
    catch_up(admin, job, topic, driver)
    service("mariadb.sh", "stop")
    try:
        produced.add(produce.generate(500, seed=44, start=START, minutes=10))
        assert driver.wait(120) == EXIT_UNAVAILABLE
        assert "kept failing for 8 s" in driver.log()
    finally:
        service("mariadb.sh", "start")
    assert error_log(admin) == produced.counts_below(stored_offsets(admin, job, topic))
    restarted = start_driver(job, topic)
    catch_up(admin, job, topic, restarted, "the restarted job to catch up")
    assert error_log(admin) == produced.total()
    assert restarted.stop() == 0


def test_kafka_broker_restart_mid_stream(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=3), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(1000, seed=45, start=START, minutes=10))
    driver = start_driver(job, topic)
    catch_up(admin, job, topic, driver)
    service("kafka.sh", "stop")
    service("kafka.sh", "start")
    produced.add(produce.generate(1000, seed=46, start=START, minutes=10))
    catch_up(admin, job, topic, driver, "the job to catch up after the broker restart", 300)
    assert error_log(admin) == produced.total()
    assert stored_offsets(admin, job, topic) == kafka_admin.end_offsets(topic)
    assert driver.stop() == 0
