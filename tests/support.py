"""Helpers for tests that use the real Kafka and MariaDB started by `make up`/`make test`."""

import contextlib
import os
import signal
import subprocess
import time
import uuid
from pathlib import Path

import kafka_admin
import pymysql

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / ".local" / "test-logs"


def dotenv() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            key, _, value = line.partition("=")
            values[key.strip()] = value.strip()
    return {**values, **{k: os.environ[k] for k in values if k in os.environ}}


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def admin_connect() -> pymysql.Connection:
    """The admin account (root), as an operator or another writer would use it."""
    env = dotenv()
    password = (ROOT / ".local" / "secrets" / "mysql_root_password").read_text(encoding="utf-8").strip()
    return pymysql.connect(host="127.0.0.1", port=int(env["MYSQL_PORT"]), user="root", password=password,
                           database=env["MYSQL_DATABASE"], autocommit=True)


def query(conn: pymysql.Connection, sql: str, args=()) -> list[tuple]:
    with conn.cursor() as cursor:
        cursor.execute(sql, args)
        return list(cursor.fetchall())


def error_log(conn: pymysql.Connection) -> dict[str, int]:
    return {t.strftime("%Y-%m-%d %H:%M:00"): int(n) for t, n in query(conn, "SELECT log_time, log_count FROM error_log")}


def stored_offsets(conn: pymysql.Connection, job: str, topic: str) -> dict[int, int]:
    rows = query(conn, "SELECT kafka_partition, next_offset FROM kafka_offsets WHERE job = %s AND topic = %s",
                 (job, topic))
    return {int(p): int(o) for p, o in rows}


def wait_until(condition, timeout: float, what: str, interval: float = 0.5):
    """Polls condition() until it returns a truthy value; fails the test after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class Driver:
    """One real spark-submit driver started through scripts/run.sh, in its own process group."""

    def __init__(self, job: str, topic: str, env: dict[str, str] | None = None, args: tuple[str, ...] = ()):
        LOGS.mkdir(parents=True, exist_ok=True)
        self.log_path = LOGS / f"{job}-{uuid.uuid4().hex[:6]}.log"
        full_env = {**os.environ, "JOB_NAME": job, "KAFKA_TOPIC": topic, "TRIGGER_INTERVAL": "1 second",
                    "TZ": "Europe/Berlin", "DRIVER_MEMORY": "1g", "SPARK_MASTER": "local[2]", **(env or {})}
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen([str(ROOT / "scripts" / "run.sh"), "job", *args], env=full_env,
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True)

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def running(self) -> bool:
        return self.process.poll() is None

    def wait(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"driver still running after {timeout} s; log: {self.log_path}") from None

    def stop(self, timeout: float = 60) -> int:
        """SIGTERM to the wrapper, which forwards it to the Python driver: a graceful stop."""
        if self.running():
            self.process.send_signal(signal.SIGTERM)
        return self.wait(timeout)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(30)


def caught_up(conn: pymysql.Connection, job: str, topic: str, driver: Driver):
    """True once the stored offsets equal the topic's end offsets; fails fast if the driver died."""
    if not driver.running():
        raise AssertionError(f"driver exited with {driver.process.returncode}:\n{driver.log()[-3000:]}")
    return stored_offsets(conn, job, topic) == kafka_admin.end_offsets(topic)
