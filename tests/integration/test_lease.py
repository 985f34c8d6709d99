"""The job lease against the real MariaDB: every start takes over, except a YARN re-attempt of an
application that a newer instance has replaced (it must not steal the job back)."""

import hashlib
import json
import time

import pytest

from errorcount import store
from errorcount.config.load import load_config
from errorcount.config.rules import Rules
from errorcount.errors import FencedError
from errorcount.offsets import TopicPartition
from errorcount.start_plan import Plan
from tests.support import job_connection, lease, query, unique

pytestmark = pytest.mark.mysql

APP_A, APP_B = "application_1700000000000_0001", "application_1700000000000_0002"


@pytest.fixture
def conn(admin):
    connection = job_connection()
    yield connection
    connection.close()


def now_ms() -> int:
    return int(time.time() * 1000)


def test_reattempt_takes_the_lease_back_from_its_own_application(conn):
    job = unique("lease")
    submitted = now_ms() - 60_000
    assert store.Store(conn, job, ["t"]).acquire_lease(f"node1 pid 10 app {APP_A}") == 1
    assert store.Store(conn, job, ["t"]).acquire_lease(f"node2 pid 20 app {APP_A}", store.Reattempt(APP_A, submitted)) == 2


def test_reattempt_does_not_take_the_job_from_a_newer_application(admin, conn):
    job = unique("lease")
    submitted_a = now_ms() - 60_000  # A was submitted a minute ago; B took the job just now
    assert store.Store(conn, job, ["t"]).acquire_lease(f"node1 pid 10 app {APP_A}") == 1
    assert store.Store(conn, job, ["t"]).acquire_lease(f"node3 pid 30 app {APP_B}") == 2
    with pytest.raises(FencedError, match="replaced this application") as fenced:
        store.Store(conn, job, ["t"]).acquire_lease(f"node4 pid 40 app {APP_A}", store.Reattempt(APP_A, submitted_a))
    assert APP_B in fenced.value.message
    assert lease(admin, job) == (2, f"node3 pid 30 app {APP_B}")  # untouched: nothing committed
    # A prefix of another id is not the same application.
    with pytest.raises(FencedError):
        store.Store(conn, job, ["t"]).acquire_lease("n pid 1 app application_1700000000000_000",
                           store.Reattempt("application_1700000000000_000", submitted_a))


def test_reattempt_takes_the_job_from_an_older_holder(conn):
    """Attempt 1 died before it took the lease: the holder is the previous deployment, which took
    the job before this application was submitted."""
    job = unique("lease")
    assert store.Store(conn, job, ["t"]).acquire_lease(f"node1 pid 10 app {APP_B}") == 1
    submitted_a = now_ms() + 60_000  # submitted after B took the job (clock far ahead: no flake)
    assert store.Store(conn, job, ["t"]).acquire_lease(f"node2 pid 20 app {APP_A}", store.Reattempt(APP_A, submitted_a)) == 2


def test_reattempt_of_a_job_without_lease_takes_it(conn):
    assert store.Store(conn, unique("lease"), ["t"]).acquire_lease(f"n pid 1 app {APP_A}", store.Reattempt(APP_A, now_ms())) == 1


def test_every_start_stores_its_counting_rules_on_the_lease_row(admin, conn):
    """The rules (and digest) of the latest start are on the row; a start that gives none clears them."""
    job = unique("lease")
    first = Rules.of(load_config([], {"ERROR_LEVELS": "ERROR,FATAL", "GROUP_BY": "level"}))
    second = Rules.of(load_config([], {"MAX_SERIES": "3"}))
    for number, rules in enumerate((first, second, None), start=1):
        assert store.Store(conn, job, ["t"]).acquire_lease(f"n pid {number}", rules=rules) == number
        digest, text = query(admin, "SELECT rules_digest, rules FROM job_leases WHERE job = %s", (job,))[0]
        if rules is None:
            assert (digest, text) == (None, None)
            continue
        assert json.loads(text)["ERROR_LEVELS"] == ("ERROR,FATAL" if rules is first else "ERROR")
        assert json.loads(text)["MAX_SERIES"] == ("1000" if rules is first else "3")
        assert digest == hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_the_first_start_is_stored_with_the_first_epoch_and_only_once(admin, conn):
    """The job's first start plan is committed with its first epoch; a later lease taken with another
    first plan (a second instance that also found no start) stores nothing of it."""
    job = unique("lease")
    first = Plan(offsets={TopicPartition("t", 0): 40, TopicPartition("t", 1): 12}, topic_ids={"t": "ID1"},
                 seen={TopicPartition("t", 0): 40, TopicPartition("t", 1): 12})
    job_store = store.Store(conn, job, ["t"])
    assert job_store.acquire_lease("n pid 1", first=first) == 1 and job_store.first_stored
    rows = "SELECT kafka_partition, next_offset, topic_id, seen_end, counted_from FROM kafka_offsets WHERE job = %s ORDER BY 1"
    stored = [(0, 40, "ID1", 40, 40), (1, 12, "ID1", 12, 12)]
    assert [tuple(row) for row in query(admin, rows, (job,))] == stored
    assert query(admin, "SELECT first_planned_at IS NOT NULL FROM job_leases WHERE job = %s", (job,))[0][0] == 1
    assert not store.Store(conn, job, ["t"]).load_start().first_start

    other = Plan(offsets={TopicPartition("t", 0): 99, TopicPartition("t", 1): 99}, topic_ids={"t": "ID1"})
    again = store.Store(conn, job, ["t"])
    assert again.acquire_lease("n pid 2", first=other) == 2 and not again.first_stored
    assert [tuple(row) for row in query(admin, rows, (job,))] == stored
    assert again.earlier_lease().startswith("epoch 2 taken ") and again.earlier_lease().endswith(" UTC by n pid 2")
