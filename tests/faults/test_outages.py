"""MySQL and Kafka go away under a running job: it waits inside the same driver and stays exact."""

import time
from datetime import datetime

import pytest

from errorcount.errors import EXIT_UNAVAILABLE
from errorcount.observe import logline
from errorcount.tools import kafka_admin
from tests.support import APP_PASSWORD_FILE, local_stack, service, wait_until

START = datetime(2034, 3, 3, 3, 0)
OUTAGE_SECONDS = 20  # the fault simulated: past the retries' backoff cap (10 s), not a synchronisation
pytestmark = pytest.mark.slow


@pytest.mark.mysql
def test_mysql_outage_is_retried_inside_the_running_driver(scenario):
    run = scenario(3, START)
    run.write(1000, seed=41)
    driver = run.caught_up_driver()
    service("db.sh", "stop")
    try:
        run.write(1000, seed=42)
        wait_until(lambda: "retry" in driver.log(), 60, "the driver to retry its commit")
        time.sleep(OUTAGE_SECONDS)
        assert driver.running()
    finally:
        service("db.sh", "start")
    run.catch_up(driver, "the job to catch up after the outage")
    assert run.counts() == run.produced.total()
    assert run.ledger()[1] == 2000
    assert [q.number for q in logline.parse(driver.log(), logline.QUERY)] == [1]  # the same query all along
    assert f"(MySQL refused the connection or is unreachable at 127.0.0.1:{local_stack()['MYSQL_PORT']}); retry" in driver.log()
    assert "(0, '')" not in driver.log()
    assert driver.stop() == 0


# MariaDB only, as the next one: the deadline is the driver's (errorcount/retry.py); what the server
# answers while it goes away and comes back is the test above's, on both servers.
def test_mysql_away_past_the_deadline_exits_unavailable(scenario):
    run = scenario(2, START)
    run.write(500, seed=43)
    driver = run.caught_up_driver(env={"RETRY_SECONDS": "8"})
    service("db.sh", "stop")
    try:
        run.write(500, seed=44)
        assert driver.wait(120) == EXIT_UNAVAILABLE
        assert "kept failing for 8 s" in driver.log()
    finally:
        service("db.sh", "start")
    assert run.counts() == run.produced.counts_below(run.offsets())
    restarted = run.caught_up_driver("the restarted job to catch up")
    assert run.counts() == run.produced.total()
    assert restarted.stop() == 0


def test_a_stop_during_an_outage_is_not_held_up_by_the_retries(scenario):
    run = scenario(1, START)
    run.write(100, seed=47)
    # A MySQL host where nothing listens (another loopback address): the driver retries connecting,
    # and the local wrapper does not start a MariaDB for it as it would for 127.0.0.1.
    driver = run.driver(env={"MYSQL_HOST": "127.0.0.2", "MYSQL_PASSWORD_FILE": str(APP_PASSWORD_FILE),
                             "RETRY_SECONDS": "3600"})
    port = local_stack()["MYSQL_PORT"]
    refused = f"connecting to MySQL failed (MySQL refused the connection or is unreachable at 127.0.0.2:{port})"
    wait_until(lambda: refused in driver.log(), 120, "the driver to retry connecting")
    assert driver.stop(timeout=60) == 0  # at the next backoff step, not after RETRY_SECONDS
    assert "stop requested while waiting out an outage" in driver.log()
    assert run.offsets() == {}  # nothing was committed, so nothing can be doubled or lost


def test_kafka_broker_restart_mid_stream(scenario):
    run = scenario(3, START)
    run.write(1000, seed=45)
    driver = run.caught_up_driver()
    service("kafka.sh", "stop")
    service("kafka.sh", "start")
    run.write(1000, seed=46)
    run.catch_up(driver, "the job to catch up after the broker restart")
    assert run.counts() == run.produced.total()
    assert run.offsets() == kafka_admin.end_offsets(run.topic)
    assert driver.stop() == 0


def test_a_failed_query_starts_again_from_mysqls_offsets_in_the_same_driver(scenario):
    run = scenario(2, START)
    run.write(1000, seed=48)
    driver = run.driver(env={"ERRORCOUNT_FAULT": "query_fails@2", "MAX_OFFSETS_PER_TRIGGER": "300"})
    run.catch_up(driver, "the job to catch up across the query restart")
    assert [q.number for q in logline.parse(driver.log(), logline.QUERY)] == [1, 2]
    assert "restarting from the offsets stored in MySQL" in driver.log()
    assert run.counts() == run.produced.total()
    assert run.ledger()[1] == 1000  # the failed batch was not half-committed, nor counted twice
    assert driver.stop() == 0
