"""Where a test may interrupt the job: the Hooks object the driver is built with (Job, Store,
BatchCommitter take it). NO_FAULTS, the default, does nothing; main() builds Faults only when
ERRORCOUNT_FAULT is set (never set it in production).

ERRORCOUNT_FAULT=POINT or POINT@N fires at the N-th time (default 1st) the driver reaches POINT:
  after_lease            SIGKILL right after the start's lease transaction commits, before the
                         start is planned against the stored offsets and its query starts
  before_transaction     SIGKILL the driver (JVM and Python) before a batch's transaction begins
  before_commit          SIGKILL after the batch's writes, before COMMIT
  after_commit           SIGKILL right after COMMIT, before the next batch
  during_spark_job       SIGKILL while the batch's Spark job runs (if the job ends before it is seen
                         running, right after it): always before the batch's transaction
  commit_lost_applied    COMMIT succeeds but the driver sees a lost connection (outcome unknown)
  commit_lost_unapplied  the connection is lost before COMMIT reaches the server (outcome unknown)
  query_fails            the batch raises an error (not a JobStop) before its transaction: the
                         query fails and the driver starts it again from MySQL's offsets
ERRORCOUNT_CLOCK_OFFSET_S=SECONDS runs the driver's clock that far ahead (negative: behind) of
the host's, as a driver on a host with a wrong clock would see it (driver_clock).
A recount's driver (errorcount/recount/) reaches before_commit, the commit_lost_* points (each
chunk's swap), after_commit (after each chunk is swapped) and during_spark_job (once the range's
read is planned, before any chunk is swapped).
"""

import contextlib
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterator, Mapping

from errorcount.errors import ConfigError

ENV = "ERRORCOUNT_FAULT"
CLOCK_ENV = "ERRORCOUNT_CLOCK_OFFSET_S"
POINTS = ("after_lease", "before_transaction", "before_commit", "after_commit", "during_spark_job", "commit_lost_applied",
          "commit_lost_unapplied", "query_fails")
log = logging.getLogger(__name__)


class InjectedFailure(RuntimeError):
    """What a failing point raises: an ordinary error, as a bug or a lost executor would be."""


class Hooks:
    """The points of the commit path a test can reach, each named in POINTS. These do nothing."""

    def crash(self, point: str) -> None:
        """The driver may die here (SIGKILL)."""

    def fail(self, point: str) -> None:
        """The batch may raise InjectedFailure here."""

    def lose_commit(self, point: str) -> bool:
        """True: act as if the connection broke around COMMIT (its outcome unknown)."""
        return False

    @contextlib.contextmanager
    def killed_during(self, point: str, job_running: Callable[[], bool]) -> Iterator[None]:
        """Wraps a Spark action during which the driver may die."""
        yield


NO_FAULTS = Hooks()


def from_env(env: Mapping[str, str]) -> Hooks:
    """The hooks ERRORCOUNT_FAULT asks for; NO_FAULTS without it."""
    spec = env.get(ENV, "")
    if not spec:
        return NO_FAULTS
    name, _, nth = spec.partition("@")
    if name not in POINTS or not (nth or "1").isdigit():
        raise ConfigError(f"{ENV}={spec!r}: expected POINT or POINT@N, POINT one of {', '.join(POINTS)} (tests only: "
                          "unset it to run the job)")
    log.warning("%s=%s: this driver will be interrupted on purpose (tests only)", ENV, spec)
    return Faults(name, int(nth or 1))


def driver_clock(env: Mapping[str, str]) -> Callable[[], float]:
    """The driver's clock (epoch seconds): time.time, or shifted by ERRORCOUNT_CLOCK_OFFSET_S."""
    spec = env.get(CLOCK_ENV, "")
    if not spec:
        return time.time
    try:
        offset = float(spec)
    except ValueError:
        raise ConfigError(f"{CLOCK_ENV}={spec!r}: expected seconds, e.g. 3600 (tests only: unset it to run the job)") from None
    log.warning("%s=%s: this driver's clock is shifted on purpose (tests only)", CLOCK_ENV, spec)
    return lambda: time.time() + offset


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


class Faults(Hooks):
    """Fires `point` once, the `nth` time the driver reaches it."""

    def __init__(self, point: str, nth: int = 1, kill: Callable[[], None] = die):
        self.point, self.nth, self.kill = point, nth, kill
        self.reached = 0

    def fires(self, point: str) -> bool:
        if point != self.point:
            return False
        self.reached += 1
        return self.reached == self.nth

    def crash(self, point: str) -> None:
        if self.fires(point):
            self.kill()

    def fail(self, point: str) -> None:
        if self.fires(point):
            raise InjectedFailure(f"fault {point}: this batch fails on purpose ({ENV})")

    def lose_commit(self, point: str) -> bool:
        return self.fires(point)

    @contextlib.contextmanager
    def killed_during(self, point: str, job_running: Callable[[], bool]) -> Iterator[None]:
        """When `point` fires, a watcher kills the driver as soon as `job_running()` is true; if
        the action returns first, the driver dies on leaving the block. Either way the kill lands
        before anything after the action (a timer could land after it)."""
        if not self.fires(point):
            yield
            return
        finished, seen = threading.Event(), threading.Event()

        def watch() -> None:
            while not finished.is_set():
                if job_running():
                    seen.set()
                    log.warning("fault %s: killing the driver while a Spark job runs", point)
                    self.kill()
                    return
                finished.wait(0.005)

        threading.Thread(target=watch, daemon=True).start()
        try:
            yield
        finally:
            finished.set()
            if not seen.is_set():
                log.warning("fault %s: the Spark job ended before it was seen running; killing the driver now", point)
            self.kill()
