"""The SQL server SIGKILLed (no shutdown: a crash, as on a lost machine) while batches commit,
several times under a steady producer. The same driver rides out every crash and the result is
exact afterwards, with no manual step. Runs on MariaDB in `make test` and on MySQL 8 in
`make test-mysql`.

Every other kill lands inside a batch's transaction for certain: the test holds error_log locked
and kills the server once InnoDB shows the job's transaction waiting on that lock (lease and
offset rows locked, upserts under way); the others land at random moments. A SIGKILL tests crash
consistency (InnoDB's redo log rolls the open transaction back), not fsync durability."""

import contextlib
import random
import re
import threading
import time
from datetime import datetime

import pytest

from errorcount.tools import produce, samples
from tests.chaos.phases import UPSERT_WAITING
from tests.support import admin_connect, free_port, kill_sql_server, local_stack, query, scrape, service, wait_until

START = datetime(2035, 5, 5, 5, 0)
KILLS = 3
RATE = 500  # lines per second, from the first commit until after the last kill
pytestmark = [pytest.mark.slow, pytest.mark.mysql]
# UPSERT_WAITING: the job's batch transaction running its error_log upsert, which the test holds
# locked: the transaction has begun, locked the lease and offset rows, and not committed.


def produce_until(stop: threading.Event, topic: str, partitions: int, written: list) -> None:
    """Writes RATE lines a second after those already in `written`, in order, until `stop` is
    set; `written` collects every line written (the test's expectation is computed from it)."""
    def lines():
        while True:
            for event in samples.generate("app", RATE // 10, seed=len(written), start=START, minutes=30):
                written.append(event)
                yield event.value
    produce.Writer(topic, partitions).write_paced(lines(), RATE, stop.is_set, first_index=len(written))


def kill_inside_a_batch_transaction(admin, user: str) -> None:
    """Holds every error_log row and gap locked, waits until a batch's transaction (its lease and
    offset rows already locked, its first upsert sent) waits on that lock, then kills the server."""
    blocker = admin_connect()
    try:
        blocker.begin()
        with blocker.cursor() as cursor:
            cursor.execute("SELECT log_time FROM error_log FOR UPDATE")
        wait_until(lambda: query(admin, UPSERT_WAITING, (user,))[0][0], 120, "a batch transaction to wait on error_log",
                   interval=0.05)
        kill_sql_server()
    finally:
        with contextlib.suppress(Exception):
            blocker.close()


def test_sql_server_sigkilled_while_batches_commit_stays_exact(scenario):
    partitions = 4
    run = scenario(partitions, START)
    run.write(500, seed=51, minutes=30)
    port = free_port()
    driver = run.caught_up_driver(env={"METRICS_PORT": str(port)})
    stop, written = threading.Event(), run.produced.events()
    producer = threading.Thread(target=produce_until, args=(stop, run.topic, partitions, written), daemon=True)
    producer.start()

    rng = random.Random(52)
    for kill in range(KILLS):
        before = run.ledger()[0]
        if kill % 2 == 0:
            kill_inside_a_batch_transaction(run.admin, local_stack()["MYSQL_USER"])
        else:  # at a random moment: between batches, in the Spark job or in a commit
            time.sleep(rng.uniform(0, 2))
            kill_sql_server()
        service("db.sh", "start")  # crash recovery, then the same accounts and schema
        wait_until(lambda b=before: run.ledger()[0] > b, 180, "a batch to commit after the restart")
        assert driver.running(), driver.log()[-3000:]

    stop.set()
    producer.join(30)
    run.catch_up(driver, "the job to catch up after the crashes")
    expected = samples.expected_counts(written)
    assert run.counts() == expected
    _batches, records, errors, rejected = run.ledger()
    assert (records, errors, rejected) == (len(written), sum(expected.values()), sum(e.rejected for e in written))
    # The commit retries and query restarts the crashes caused, as Prometheus sees them, against
    # the driver's own log lines for each (a kill inside a transaction always costs its commit a retry).
    log, label = driver.log(), f'job_name="{run.job}"'
    metrics = scrape(f"127.0.0.1:{port}")
    commit_retries = len(re.findall(r"committing batch \d+ failed \(.*\); retry \d+ in", log))
    assert metrics[("errorcount_commit_retries_total", label)] == commit_retries >= KILLS // 2 + 1
    assert metrics[("errorcount_query_restarts_total", label)] == log.count("restarting from the offsets stored in MySQL in")
    assert driver.stop() == 0
