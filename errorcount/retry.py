"""Retrying transient failures (MySQL or Kafka away) inside the running driver, up to a deadline,
and starting a failed query again, with backoff, up to a limit."""

import contextlib
import logging
import time
from collections.abc import Callable
from typing import TypeVar

from errorcount.errors import JobStop, UnavailableError

log = logging.getLogger(__name__)
T = TypeVar("T")
MAX_RESTARTS = 5          # query failures tolerated within RESTART_WINDOW seconds
RESTART_WINDOW = 600


class StopRequested(Exception):
    """A stop (signal or stop marker) arrived while waiting out an outage: nothing is in flight."""


def stoppable_sleep(stop_requested: Callable[[], bool], poll: float = 0.5,
                    wait: Callable[[float], None] = time.sleep) -> Callable[[float], None]:
    """A sleep for retry() and restart backoff that asks stop_requested() every `poll` seconds
    and raises StopRequested once it is true, so an operator's stop is not held up by an outage
    of up to RETRY_SECONDS."""
    def sleep(seconds: float) -> None:
        remaining = seconds
        while not stop_requested():
            if remaining <= 0:
                return
            step = min(poll, remaining)
            wait(step)
            remaining -= step
        raise StopRequested()
    return sleep


def first_line(error: BaseException) -> str:
    """The first line of what went wrong. A JVM call's error (py4j's Py4JJavaError) reads as
    the Java exception, its cause first (a future's ExecutionException wraps what Kafka said):
    its own first line names only the py4j call ("An error occurred while calling o60.get.")."""
    text = str(error).strip()
    java = getattr(error, "java_exception", None)
    if java is not None:
        with contextlib.suppress(Exception):  # the JVM gone (its gateway closed): py4j's own text stands
            text = str((java.getCause() or java).toString()).strip() or text
    return text.splitlines()[0] if text else type(error).__name__


def retry(what: str, action: Callable[[], T], seconds: float, transient: Callable[[BaseException], bool],
          sleep: Callable[[float], None] = time.sleep, clock: Callable[[], float] = time.monotonic,
          describe: Callable[[BaseException], str] = first_line, on_retry: Callable[[], None] = lambda: None) -> T:
    """Runs action() until it succeeds. Transient failures are retried with exponential backoff
    (0.5 s doubling to 10 s) for up to `seconds`, then UnavailableError; others propagate.
    describe(error) is how a failure reads in the log; on_retry() is called before each retry."""
    deadline = clock() + seconds
    delay, attempt = 0.5, 0
    while True:
        try:
            return action()
        except JobStop:
            raise
        except Exception as error:
            if not transient(error):
                raise
            attempt += 1
            if clock() + delay > deadline:
                raise UnavailableError(f"{what} kept failing for {seconds:.0f} s (last: {describe(error)}); "
                                       "nothing was half-committed. Restart the job once the service is back "
                                       "(or raise RETRY_SECONDS).") from None
            log.warning("%s failed (%s); retry %d in %.1f s", what, describe(error), attempt, delay)
            on_retry()
            sleep(delay)
            delay = min(delay * 2, 10.0)


class QueryFailed(Exception):
    """The streaming query ended with an error that was not a JobStop."""


class RestartPolicy:
    """When a failed query is started again inside the driver: after 2, 4, 8, 16, 30 s; a failure
    beyond MAX_RESTARTS within RESTART_WINDOW seconds ends the driver (a JobStop, exit 1)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, limit: int = MAX_RESTARTS,
                 window: float = RESTART_WINDOW):
        self.clock, self.limit, self.window = clock, limit, window
        self.failures: list[float] = []  # when the queries failed, within the window

    def delay_after(self, failure: QueryFailed) -> float:
        """Seconds to wait before the next query; JobStop once there were too many failures."""
        now = self.clock()
        self.failures = [t for t in self.failures if now - t < self.window] + [now]
        if len(self.failures) > self.limit:
            raise JobStop(f"the streaming query failed {len(self.failures)} times within {self.window:.0f} s, "
                          f"last: {failure}. Nothing was half-committed; see the log above.")
        return min(2 ** len(self.failures), 30)
