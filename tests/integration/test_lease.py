"""The job lease against the real MariaDB: every start takes over, except a YARN re-attempt of an
application that a newer instance has replaced (it must not steal the job back)."""

import os

import pytest

from app import sink
from app.config import load_config
from app.errors import FencedError
from tests.support import ROOT, query, unique


@pytest.fixture
def conn(admin):
    password = (ROOT / ".local" / "secrets" / "mysql_password").read_text(encoding="utf-8").strip()
    env = {"MYSQL_PASSWORD": password, **{k: v for k, v in os.environ.items() if k == "MYSQL_PORT"}}
    connection = sink.connect(load_config([], env))
    yield connection
    connection.close()


def lease(admin, job: str) -> tuple[int, str]:
    epoch, owner = query(admin, "SELECT epoch, owner FROM job_leases WHERE job = %s", (job,))[0]
    return int(epoch), owner


def test_reattempt_takes_the_lease_back_from_its_own_application_only(admin, conn):
    job = unique("lease")
    app_a, app_b = "application_1700000000000_0001", "application_1700000000000_0002"
    assert sink.acquire_lease(conn, job, f"node1 pid 10 app {app_a}") == 1
    assert sink.acquire_lease(conn, job, f"node2 pid 20 app {app_a}", retry_of=app_a) == 2  # its own attempt 1

    assert sink.acquire_lease(conn, job, f"node3 pid 30 app {app_b}") == 3  # a newer submission: takes over
    with pytest.raises(FencedError, match="newer instance had replaced it") as fenced:
        sink.acquire_lease(conn, job, f"node4 pid 40 app {app_a}", retry_of=app_a)
    assert app_b in fenced.value.message
    assert lease(admin, job) == (3, f"node3 pid 30 app {app_b}")  # untouched: nothing committed

    # A prefix of another id is not the same application.
    with pytest.raises(FencedError):
        sink.acquire_lease(conn, job, "n pid 1 app application_1700000000000_000", retry_of="application_1700000000000_000")


def test_reattempt_of_a_job_without_lease_takes_it(conn):
    assert sink.acquire_lease(conn, unique("lease"), "n pid 1 app application_1_0003", retry_of="application_1_0003") == 1
