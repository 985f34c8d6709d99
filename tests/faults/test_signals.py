"""A second stop signal exits at once (code 130); whatever was in flight is not half-committed.
The log names the signal that arrived (Ctrl-C is SIGINT), also when the wrapper started with the
stop signals ignored. A stop while no Python driver runs: before it started, spark-submit is killed;
after it exited, its exit code stands."""

import contextlib
import os
import re
import signal
import subprocess
import time
from datetime import datetime
from pathlib import Path

import pytest

from errorcount.errors import EXIT_INTERRUPTED
from errorcount.main import SAME_REQUEST_S
from tests.chaos.phases import UPSERT_WAITING
from tests.harness.javac import harness_jar
from tests.support import admin_connect, local_stack, process_stat, process_state, query, unique, wait_until

START = datetime(2038, 8, 8, 8, 0)
pytestmark = pytest.mark.slow


def test_second_signal_exits_at_once_and_leaves_mysql_consistent(scenario):
    run = scenario(2, START)
    run.write(800, seed=91, minutes=5)
    # Started as a script's background job that ignores SIGTERM too: run.sh must hear both anyway.
    driver = run.caught_up_driver(env={"MAX_OFFSETS_PER_TRIGGER": "200"}, ignored_signals=True)
    blocker = admin_connect()  # holds error_log locked: the next batch's transaction waits in flight
    try:
        blocker.begin()
        with blocker.cursor() as cursor:
            cursor.execute("SELECT log_time FROM error_log FOR UPDATE")
        run.write(4000, seed=92, minutes=5)
        wait_until(lambda: query(run.admin, UPSERT_WAITING, (local_stack()["MYSQL_USER"],))[0][0], 120,
                   "a batch transaction to wait on error_log", interval=0.05)
        driver.process.send_signal(signal.SIGINT)  # what Ctrl-C sends: the wrapper passes the same signal on
        wait_until(lambda: "SIGINT received" in driver.log(), 30, "the first signal to be seen", interval=0.02)
        # A second request is a signal a second or more after the last one (errorcount/main.py
        # StopRequests): sooner, it is a copy of the first.
        first = time.monotonic()
        wait_until(lambda: time.monotonic() - first >= SAME_REQUEST_S, 5, "the copies' window to pass", interval=0.05)
        driver.process.send_signal(signal.SIGTERM)
        assert driver.wait(60) == EXIT_INTERRUPTED, driver.log()[-2000:]
    finally:
        with contextlib.suppress(Exception):
            blocker.close()
    assert "second stop signal: exiting now" in driver.log()
    assert "stopped cleanly" not in driver.log()  # the batch in flight was not waited for
    stored = run.offsets()
    assert run.counts() == run.produced.counts_below(stored)
    assert run.ledger()[1] == sum(stored.values())


# What a stop does while no Python driver runs under spark-submit (scripts/run.sh's `forward`): before
# the driver started nothing is in flight, so spark-submit is killed at once; after the driver exited,
# Spark is ending with the driver's exit code (a fatal error's, say), which one stop must not replace.
EXITING = "tests/harness/exiting_driver.py"


def spark_submit_jvm(driver) -> int | None:
    """The pid of the SparkSubmit JVM in the driver's process group, once one runs."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            group = int(process_stat(int(entry.name))[2])
            command = (entry / "cmdline").read_bytes()
        except OSError:  # gone meanwhile
            continue
        if group == driver.process.pid and b"org.apache.spark.deploy.SparkSubmit" in command:
            return int(entry.name)
    return None


def exited_driver(driver) -> int:
    """The exiting driver's pid, once it has exited (its JVM may still run)."""
    said = wait_until(lambda: re.search(r"exiting_driver: pid (\d+)", driver.log()), 120, "the driver script to run")
    pid = int(said.group(1))
    wait_until(lambda: exited(pid), 30, "the driver script to exit", interval=0.01)
    return pid


def exited(pid: int) -> bool:
    """Whether `pid` has exited: gone, or a zombie its parent has not reaped yet."""
    try:
        return process_state(pid) == "Z"
    except FileNotFoundError:  # reaped
        return True


def lingering(milliseconds: int) -> dict[str, str]:
    """A driver's environment whose JVM lingers `milliseconds` as it exits (tests/harness/java/LingerOnExit.java)."""
    agent = harness_jar("LingerOnExit", {"Premain-Class": "errorcount.tests.LingerOnExit"})
    return {"SPARK_SUBMIT_EXTRA": f"--driver-java-options -javaagent:{agent}={milliseconds}", "EXITING_DRIVER_CODE": "3"}


def test_a_stop_while_spark_starts_kills_spark_submit_at_once(start_driver, tmp_path):
    # The pid files of wrappers that are gone are removed by the next wrapper; a live one's stays.
    gone = subprocess.Popen(["true"])
    gone.wait()  # exited and reaped: no process has its pid (until the kernel hands it out again)
    stale, live = (tmp_path / f"errorcount-driver.{gone.pid}.a1b2c3", tmp_path / f"errorcount-driver.{os.getpid()}.d4e5f6")
    stale.write_text("12345\n")
    live.write_text("")
    driver = start_driver(unique("job"), unique("unused"), env={"TMPDIR": str(tmp_path)}, driver=EXITING, create_topic=False)
    wait_until(lambda: spark_submit_jvm(driver), 60, "spark-submit's JVM to run", interval=0.01)
    driver.process.send_signal(signal.SIGINT)
    assert driver.wait(60) == 128 + signal.SIGKILL, driver.log()[-2000:]
    assert "SIGINT before the Python driver started (Spark starting): killing spark-submit" in driver.log()
    assert "exiting_driver:" not in driver.log()
    assert sorted(p.name for p in tmp_path.glob("errorcount-driver.*")) == [live.name]  # and its own removed


def test_a_stop_after_the_driver_exited_keeps_its_exit_code_and_a_second_one_kills(start_driver):
    ending = start_driver(unique("job"), unique("unused"), env=lingering(5_000), driver=EXITING, create_topic=False)
    exited_driver(ending)
    ending.process.send_signal(signal.SIGTERM)
    wait_until(lambda: "SIGTERM after the Python driver exited" in ending.log(), 10, "the stop to be seen")
    assert ending.wait(60) == 3, ending.log()[-2000:]  # the driver's code, once Spark ended on its own

    hung = start_driver(unique("job"), unique("unused"), env=lingering(600_000), driver=EXITING, create_topic=False)
    exited_driver(hung)
    hung.process.send_signal(signal.SIGINT)
    wait_until(lambda: "SIGINT after the Python driver exited" in hung.log(), 10, "the first stop to be seen")
    hung.process.send_signal(signal.SIGINT)  # within a second: a copy of the same request, which changes nothing
    wait_until(lambda: "SIGINT again within a second: the same stop request" in hung.log(), 10, "the copy to be seen")
    copied = time.monotonic()  # the window runs from the last copy
    wait_until(lambda: time.monotonic() - copied >= SAME_REQUEST_S, 5, "the copies' window to pass", interval=0.05)
    assert hung.running()
    hung.process.send_signal(signal.SIGINT)  # a second request
    assert hung.wait(30) == 128 + signal.SIGKILL, hung.log()[-2000:]
    assert "SIGINT again while Spark ends after the driver: killing spark-submit" in hung.log()
