"""Helpers for tests that use the real Kafka and SQL server (MariaDB, or MySQL 8 under
`make test-mysql`) started by `make up`/`make test`."""

import contextlib
import os
import re
import shutil
import signal
import subprocess
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import pymysql
import pytest

from errorcount.config.load import load_config
from errorcount.store import mysql
from errorcount.tools import kafka_admin, produce, samples
from errorcount.tools.kafka_admin import group_offsets  # noqa: F401
from errorcount.tools.localenv import local_stack  # noqa: F401
from tests.harness import class_archive
from tests.harness.admin_db import (  # noqa: F401
    apply_schema,
    apply_sql_file,
    error_log,
    lease,
    ledger,
    query,
    release_counts_table,
    series_counts,
    series_totals,
    stored_offsets,
)

# Admin-side readers live in tests/harness/admin_db.py (shared with make chaos and make bench);
# re-exported here for the tests.
from tests.harness.admin_db import connect as admin_connect  # noqa: F401
from tests.harness.drivers import Driver, driver_env, free_port, scrape, served, wait_until  # noqa: F401
from tests.harness.processes import pid_of, sql_server

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / ".local" / "test-logs"
APP_PASSWORD_FILE = ROOT / ".local" / "secrets" / "mysql_password"  # written by the stack's bootstrap


def app_password() -> str:
    """The job's MySQL password on the local stack."""
    return APP_PASSWORD_FILE.read_text(encoding="utf-8").strip()


def job_connection(**settings: str):
    """The job's own MySQL connection (errorcount.mysql.connect) on the local stack; settings (e.g.
    MYSQL_USER, MYSQL_PASSWORD) override the job's account."""
    env = {"MYSQL_PASSWORD": app_password(), "MYSQL_PORT": local_stack()["MYSQL_PORT"], **settings}
    return mysql.connect(load_config([], env))


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


class Produced:
    """Events written to one topic, each with the (partition, offset) it landed at. Offsets are
    derived from the end offsets before writing: produce.produce() writes round-robin, in order,
    with an idempotent producer, so partition p receives events p, p+P, p+2P, ... consecutively."""

    def __init__(self, topic: str):
        self.topic = topic
        self.placed: list[tuple[int, int, samples.Event]] = []

    def add(self, events: list[samples.Event]) -> None:
        base = kafka_admin.end_offsets(self.topic)
        partitions = len(base)
        produce.produce(self.topic, events, partitions)
        self.placed += [(i % partitions, base[i % partitions] + i // partitions, e) for i, e in enumerate(events)]

    def add_to(self, partition: int, events: list[samples.Event]) -> None:
        """Writes `events`, in order, to one partition."""
        base = kafka_admin.end_offsets(self.topic)[partition]
        writer = produce.Writer(self.topic)
        for event in events:
            produce.send(writer.producer, self.topic, event.value, partition, writer._delivered)
        writer.flush()
        self.placed += [(partition, base + i, e) for i, e in enumerate(events)]

    def counts_where(self, counted: Callable[[int, int], bool]) -> dict[str, int]:
        """Expected error_log when exactly the records at (partition, offset) with counted(...) true were counted."""
        return samples.expected_counts([e for p, o, e in self.placed if counted(p, o)])

    def events(self) -> list[samples.Event]:
        return [event for _p, _o, event in self.placed]

    def counts_below(self, stored: dict[int, int]) -> dict[str, int]:
        """Expected error_log when exactly the records below `stored` were counted."""
        return samples.expected_counts([e for p, o, e in self.placed if o < stored.get(p, 0)])

    def series_below(self, stored: dict[int, int] | None, group_by: str) -> dict:
        """Expected per-dimension counts ({(minute, values): n}) of the records below `stored` (None: all)."""
        events = [e for p, o, e in self.placed if stored is None or o < stored.get(p, 0)]
        return samples.expected_series(events, tuple(group_by.split(",")))

    def total(self) -> dict[str, int]:
        return samples.expected_counts(self.events())

    def lines_below(self, stored: dict[int, int] | None) -> dict[str, int]:
        """Expected line_count (COUNT_LINES) when exactly the records below `stored` (None: all) were counted."""
        return samples.expected_lines([e for p, o, e in self.placed if stored is None or o < stored.get(p, 0)])

    def series_lines_below(self, stored: dict[int, int] | None, group_by: str) -> dict:
        """Expected per-dimension lines ({(minute, values): n}) of the records below `stored` (None: all)."""
        events = [e for p, o, e in self.placed if stored is None or o < stored.get(p, 0)]
        return samples.expected_series_lines(events, tuple(group_by.split(",")))


def service(script: str, action: str) -> None:
    """Stops or starts one native service (scripts/kafka.sh, scripts/db.sh: the SQL server that
    MYSQL_SERVER names)."""
    subprocess.run([str(ROOT / "scripts" / script), action], check=True, timeout=180,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def sql_server_pid() -> int:
    """The running native SQL server's process (scripts/db.sh keeps its PID file)."""
    return pid_of(sql_server())


def kill_sql_server() -> None:
    """SIGKILLs the running SQL server at once (no shutdown, no fork: a kill aimed at an open
    transaction must not wait for a shell to start)."""
    pid = sql_server_pid()
    os.kill(pid, signal.SIGKILL)
    wait_until(lambda: not process_alive(pid), 30, "the killed SQL server to be gone", interval=0.05)


def process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def process_stat(pid: int) -> list[str]:
    """/proc/<pid>/stat's fields after the command name (which may hold spaces and parentheses):
    [state, ppid, pgrp, ...]."""
    stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    return stat[stat.rindex(")") + 2:].split()


def process_state(pid: int) -> str:
    """The kernel's one-letter state of a process: R, S, D, T (stopped), Z."""
    return process_stat(pid)[0]


@contextlib.contextmanager
def sql_server_paused() -> Iterator[None]:
    """The running SQL server SIGSTOPped (it still accepts connections, and says nothing) until the
    block ends; checked to be the server's process and to have stopped before the block runs."""
    pid = sql_server_pid()
    name = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8").strip()
    assert name in ("mariadbd", "mysqld"), f"pid {pid} of {sql_server()}'s pid file is {name!r}, not the SQL server"
    os.kill(pid, signal.SIGSTOP)
    try:
        wait_until(lambda: process_state(pid) == "T", 10, "the SQL server to stop", interval=0.01)
        yield
    finally:
        os.kill(pid, signal.SIGCONT)


# The JIT's first tier only (C1) for the JVMs the tests start: a test driver lives for seconds to a
# minute, too short for C2's compilations to pay back the CPU they take on 2 cores (measured: a
# driver's start, first commit and stop 19-22 CPU-s against 31-34 with both tiers). The YARN tests'
# containers too (tests/yarn/cluster.py); the job itself, make bench and make chaos keep both tiers.
# The JIT does not change what a query computes.
# And the classes they load mapped from the class-data archive `make class-archive` builds, when
# there is one for this JVM and these jars (tests/harness/class_archive.py).
SHORT_JIT = "-XX:TieredStopAtLevel=1"
TEST_DRIVER = {"TRIGGER_INTERVAL": "1 second", "TZ": "Europe/Berlin", "DRIVER_MEMORY": "1g", "SPARK_MASTER": "local[2]",
               # the JVM's own compile thresholds, not the 5x scripts/run.sh sets for the job (measured with both tiers)
               "SPARK_SUBMIT_OPTS": f"{SHORT_JIT} -XX:CompileThresholdScaling=1 {class_archive.java_option()}".strip()}


def launch(job: str, topic: str, env: dict[str, str] | None = None, args: tuple[str, ...] = (),
           command: list[str] | None = None, create_topic: bool = True, ignored_signals: bool = False,
           driver: str | None = None) -> Driver:
    """A test's driver: the job on the local stack, a non-UTC zone, two cores, its own log file
    (`command`: another way to start it than scripts/run.sh, run in the checkout; `create_topic`
    False: run.sh --no-topic; `ignored_signals`: started with SIGINT and SIGTERM ignored; `driver`:
    run.sh --driver, another driver script than the job's, a path in the checkout)."""
    return Driver(LOGS / f"{job}-{uuid.uuid4().hex[:6]}.log", {**driver_env(job, topic), **TEST_DRIVER, **(env or {})}, args,
                  driver=driver, create_topic=create_topic, command=command, ignored_signals=ignored_signals)


BY_HAND = "<!-- run by tests/integration/test_by_hand.py and tests/yarn/test_yarn.py -->"


def documented_block() -> str:
    """docs/operations.md's "spark-submit by hand" command block, as written."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    block = re.search(re.escape(BY_HAND) + r"\n```bash\n(.*?)^```", text, flags=re.S | re.M)
    assert block, f"docs/operations.md lost the command block after {BY_HAND}"
    return block.group(1)


def seed_counts_and_ledger(conn: pymysql.Connection, table: str, counts: dict[datetime, int], job: str,
                           ledger: list[tuple]) -> None:
    """Known rows for the readers of the counts and the ledger (make report, the dashboard):
    `counts` {minute: count} into `table`, `ledger` (committed_at, rejected[, topic]) as ledger
    rows of `job` (10 records each; topic 't' unless given) and their rejects in rejected_minutes,
    in their minute of commit."""
    for minute, count in counts.items():
        query(conn, f"INSERT INTO `{table}` (log_time, log_count) VALUES (%s, %s)", (minute, count))
    for committed_at, rejected, *topic in ledger:
        query(conn, "INSERT INTO ingest_batches (job, topic, epoch, records, error_lines, rejected, offsets_before, "
                    "offsets_after, committed_at) VALUES (%s, %s, 1, 10, 1, %s, '{}', '{}', %s)",
              (job, topic[0] if topic else "t", rejected, committed_at))
        # the batch's rejects as if their Kafka timestamps lay in its minute of commit
        query(conn, "INSERT INTO rejected_minutes (job, topic, log_time, rejected) VALUES (%s, %s, %s, %s) "
                    "ON DUPLICATE KEY UPDATE rejected = rejected + VALUES(rejected)",
              (job, topic[0] if topic else "t", committed_at.replace(second=0, microsecond=0), rejected))


def catch_up(conn: pymysql.Connection, job: str, topic: str, driver: "Driver", what: str = "the job to catch up",
             timeout: float = 240) -> None:
    """Waits until the driver has committed everything the topic holds."""
    wait_until(lambda: caught_up(conn, job, topic, driver), timeout, what)


def caught_up(conn: pymysql.Connection, job: str, topic: str, driver: "Driver"):
    """True once the stored offsets equal the topic's end offsets; fails fast if the driver died."""
    driver.check_alive()
    return stored_offsets(conn, job, topic) == kafka_admin.end_offsets(topic)


@dataclass
class Scenario:
    """One fault test's world: a fresh topic, a fresh job name, what was written to the topic, and
    short ways to start drivers and read the job's state back from MySQL."""

    admin: pymysql.Connection
    topic: str
    job: str
    start: datetime
    launch: Callable[..., Driver]
    log_format: str = "app"  # what write() produces (errorcount/tools/samples.py)
    produced: Produced = field(init=False)

    def __post_init__(self):
        self.produced = Produced(self.topic)

    def write(self, count: int, seed: int, minutes: int = 10) -> None:
        self.produced.add(samples.generate(self.log_format, count, seed=seed, start=self.start, minutes=minutes))

    def driver(self, **kwargs) -> Driver:
        return self.launch(self.job, self.topic, **kwargs)

    def caught_up_driver(self, what: str = "the job to catch up", **kwargs) -> Driver:
        driver = self.driver(**kwargs)
        self.catch_up(driver, what)
        return driver

    def catch_up(self, driver: Driver, what: str = "the job to catch up") -> None:
        catch_up(self.admin, self.job, self.topic, driver, what)

    def counts(self) -> dict[str, int]:
        return error_log(self.admin)

    def offsets(self) -> dict[int, int]:
        return stored_offsets(self.admin, self.job, self.topic)

    def ledger(self) -> tuple[int, int, int, int]:
        return ledger(self.admin, self.job)

    def epoch(self) -> int:
        return lease(self.admin, self.job)[0]

    def series(self, group_by: str) -> dict:
        """The job's per-dimension counts of `group_by`; asserts first that every minute's series add up to its total."""
        assert series_totals(self.admin, self.job) == self.counts()
        return {key: n for key, n in series_counts(self.admin, self.job, group_by).items() if n}  # lines-only series: 0

    def lines(self) -> dict[str, int]:
        """error_log's line_count (COUNT_LINES) per minute."""
        return error_log(self.admin, column="line_count")

    def series_lines(self, group_by: str) -> dict:
        """The job's per-dimension lines of `group_by`; asserts first that every minute's series add up to its lines."""
        assert series_totals(self.admin, self.job, "line_count") == self.lines()
        return {key: n for key, n in series_counts(self.admin, self.job, group_by, "line_count").items() if n}


def make_schema(table: str) -> None:
    """What `make schema` does with COUNTS_TABLE set (scripts/db.sh schema): the counts table `table`."""
    subprocess.run([str(ROOT / "scripts" / "db.sh"), "schema"], check=True, timeout=120, capture_output=True,
                   env={**os.environ, "COUNTS_TABLE": table})


def compose_config() -> str:
    """docker-compose.yml as `docker-compose config` resolves it (no engine needed)."""
    command = shutil.which("docker-compose")
    if command is None:
        pytest.fail("docker-compose is missing: run through `make test`, which installs it")
    result = subprocess.run([command, "-f", str(ROOT / "docker-compose.yml"), "config"], cwd=ROOT,
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout
