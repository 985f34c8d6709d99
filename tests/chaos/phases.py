"""Where a make chaos kill lands: each kill is aimed at a phase of the job's life, and the phase
is observed again from outside at the moment of the kill, so the report says what was hit
rather than what was meant.

    driver starting  the driver has not yet logged where it resumes from
    committing       the job's MySQL connection is running a statement of the batch transaction
    batch running    Spark's REST API lists a running job (the batch's count job)
    idle             none of these: between batches

A kill aimed at `committing` holds every counts table row and gap locked from an admin connection
until the batch's upsert waits on it, so the kill lands inside the transaction for certain.
"""

import contextlib
import json
import time
import urllib.request
from pathlib import Path

from errorcount import store
from tests.harness import admin_db
from tests.harness.admin_db import query
from tests.harness.drivers import ui_port

PHASES = ("driver starting", "batch running", "committing", "idle")
UI_PORT = ui_port()  # chaos drivers' Spark UI, read for running jobs (one port for a run's restarts)
RUNNING_STATEMENT = ("SELECT COUNT(*) FROM information_schema.processlist "
                     "WHERE user = %s AND command = 'Query' AND info IS NOT NULL")
# The batch's counts upsert as the job sends it, into whichever counts table: its first words.
UPSERT_START = store.UPSERT_COUNTS.replace("{table}", "%%").split(" VALUES", 1)[0]
UPSERT_WAITING = RUNNING_STATEMENT + f" AND info LIKE '{UPSERT_START}%%'"


def spark_job_running(app: str) -> bool:
    """True if the Spark UI of the driver named `app` lists a running job; False if none, no UI
    answers, or another application's does (UI_PORT was taken: Spark bound the next port)."""
    base = f"http://127.0.0.1:{UI_PORT}/api/v1/applications"
    try:
        with urllib.request.urlopen(base, timeout=2) as answer:
            apps = json.load(answer)
        if apps[0]["name"] != app:
            return False
        with urllib.request.urlopen(f"{base}/{apps[0]['id']}/jobs?status=running", timeout=2) as answer:
            return bool(json.load(answer))
    except (OSError, ValueError, LookupError):
        return False


def observe(conn, user: str, app: str, log_path: Path, log_from: int) -> str:
    """The phase the job is in now (the driver's own log starts at byte `log_from`; its Spark application's name `app`)."""
    with open(log_path, "rb") as log:
        log.seek(log_from)
        if b"resuming from" not in log.read():
            return "driver starting"
    with contextlib.suppress(Exception):  # the server may be the one just killed
        if query(conn, RUNNING_STATEMENT, (user,))[0][0]:
            return "committing"
    return "batch running" if spark_job_running(app) else "idle"


def poll(condition, seconds: float, interval: float = 0.02) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(interval)
    return False


@contextlib.contextmanager
def aimed(aim: str, conn, user: str, app: str, started_driver: bool, rng, table: str = "error_log"):
    """Waits (bounded) until the job is in phase `aim`, then yields for the kill; for `committing`
    the lock on the counts table `table` is held across the kill."""
    if aim == "driver starting":
        time.sleep(rng.uniform(0.5, 6) if started_driver else 0)  # random moment of a start-up
        yield
    elif aim == "batch running":
        poll(lambda: spark_job_running(app), 15)
        yield
    elif aim == "committing":
        with admin_db.counts_locked(table):
            poll(lambda: query(conn, UPSERT_WAITING, (user,))[0][0], 20)
            yield
    else:  # idle: just after a batch's Spark job ended
        poll(lambda: spark_job_running(app), 15)
        poll(lambda: not spark_job_running(app), 15)
        time.sleep(rng.uniform(0, 0.2))
        yield
