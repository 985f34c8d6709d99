"""Test-only fault injection, inert unless ERRORCOUNT_FAULT is set (never set it in production).

ERRORCOUNT_FAULT=POINT or POINT@N fires at the N-th time (default 1st) the driver reaches POINT:
  before_transaction     SIGKILL the driver (JVM and Python) before a batch's transaction begins
  before_commit          SIGKILL after the batch's writes, before COMMIT
  after_commit           SIGKILL right after COMMIT, before the next batch
  during_spark_job       SIGKILL while the batch's Spark job runs
  commit_lost_applied    COMMIT succeeds but the driver sees a lost connection (outcome unknown)
  commit_lost_unapplied  the connection is lost before COMMIT reaches the server (outcome unknown)
"""

import os
import signal
import threading

ENV = "ERRORCOUNT_FAULT"
_reached: dict[str, int] = {}


def fires(point: str) -> bool:
    name, _, nth = os.environ.get(ENV, "").partition("@")
    if name != point:
        return False
    _reached[point] = _reached.get(point, 0) + 1
    return _reached[point] == int(nth or 1)


def die() -> None:
    """As abrupt as a lost machine: SIGKILL the spark-submit JVM (our parent) and this process."""
    parent = os.getppid()
    try:
        with open(f"/proc/{parent}/comm", encoding="utf-8") as handle:
            if handle.read().strip() == "java":
                os.kill(parent, signal.SIGKILL)
    except OSError:
        pass
    os.kill(os.getpid(), signal.SIGKILL)


def crash_point(point: str) -> None:
    if fires(point):
        die()


def crash_soon(point: str, delay: float = 0.3) -> None:
    """Arms a kill that lands while the caller is busy (e.g. inside a Spark job)."""
    if fires(point):
        threading.Timer(delay, die).start()
