"""Test-only fault injection, inert unless ERRORCOUNT_FAULT is set (never set it in production).

ERRORCOUNT_FAULT=POINT or POINT@N fires at the N-th time (default 1st) the driver reaches POINT:
  before_transaction     SIGKILL the driver (JVM and Python) before a batch's transaction begins
  before_commit          SIGKILL after the batch's writes, before COMMIT
  after_commit           SIGKILL right after COMMIT, before the next batch
  during_spark_job       SIGKILL while the batch's Spark job runs (if the job ends before it is seen
                         running, right after it): always before the batch's transaction
  commit_lost_applied    COMMIT succeeds but the driver sees a lost connection (outcome unknown)
  commit_lost_unapplied  the connection is lost before COMMIT reaches the server (outcome unknown)
  query_fails            the batch raises an error (not a JobStop) before its transaction: the
                         query fails and the driver starts it again from MySQL's offsets
"""

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Callable, Iterator

ENV = "ERRORCOUNT_FAULT"
log = logging.getLogger("errorcount.faults")
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


class InjectedFailure(RuntimeError):
    """What fail_point raises: an ordinary error, as a bug or a lost executor would be."""


def fail_point(point: str) -> None:
    if fires(point):
        raise InjectedFailure(f"fault {point}: this batch fails on purpose (ERRORCOUNT_FAULT)")


@contextlib.contextmanager
def killed_during(point: str, job_running: Callable[[], bool]) -> Iterator[None]:
    """Wraps a Spark action. When `point` fires, a watcher SIGKILLs the driver as soon as
    `job_running()` is true; if the action returns first, the driver dies on leaving the block.
    Either way the kill lands before anything after the action (a timer could land after it)."""
    if not fires(point):
        yield
        return
    finished, seen = threading.Event(), threading.Event()

    def watch() -> None:
        while not finished.is_set():
            if job_running():
                seen.set()
                log.warning("fault %s: killing the driver while a Spark job runs", point)
                die()
                return
            finished.wait(0.005)

    threading.Thread(target=watch, daemon=True).start()
    try:
        yield
    finally:
        finished.set()
        if not seen.is_set():
            log.warning("fault %s: the Spark job ended before it was seen running; killing the driver now", point)
        die()
