"""Commits one at a time and in batch order; with OVERLAP_COMMIT on one committing thread, while
Spark reads and counts the next batch. One failure slot: the first failure of a commit (or the
JobStop a batch raised, recorded by its handler) stops everything after it."""

import contextlib
from collections.abc import Callable
from concurrent import futures
from concurrent.futures import Future, ThreadPoolExecutor

# How long one look at a commit under way lasts. CPython runs signal handlers on the main thread
# only, and a stop signal the kernel hands to another thread (the committing thread, py4j's) does
# not wake a wait without a timeout: a second stop ("exit at once") would wait for a hung commit.
WAIT_SLICE_S = 0.2


class InOrder:
    def __init__(self, overlap: bool):
        self._thread = ThreadPoolExecutor(1, "errorcount-commit") if overlap else None
        self._pending: Future | None = None  # the commit under way on that thread
        self.failure: BaseException | None = None  # the first failure; once set, nothing later runs

    def record(self, failure: BaseException) -> None:
        """Keeps the first failure only: it is why the query ends."""
        if self.failure is None:
            self.failure = failure

    def run(self, commit: Callable[[], None]) -> None:
        """Waits for the previous commit (raising the failure instead, if there is one), then runs
        `commit` (submit)."""
        self.wait()
        self.submit(commit)

    def submit(self, commit: Callable[[], None]) -> None:
        """Runs `commit` once the caller has waited for the previous one (wait(), which a caller does
        itself when it acts between the two): on the committing thread, returning as soon as it is
        submitted, or here."""
        assert self._pending is None and self.failure is None, "wait() for the previous commit first"
        if self._thread:
            self._pending = self._thread.submit(self._recorded, commit)
        else:
            self._recorded(commit)

    def _recorded(self, commit: Callable[[], None]) -> None:
        try:
            commit()
        except BaseException as failure:
            self.record(failure)
            raise

    def busy(self) -> bool:
        """Whether a commit is under way on the committing thread."""
        return self._pending is not None and not self._pending.done()

    def wait(self) -> None:
        """Waits for the commit under way, if any; raises the failure, if there is one."""
        pending = self._pending
        if pending is not None:
            while not futures.wait([pending], WAIT_SLICE_S).done:
                pass  # a handler that raises here leaves the commit pending: a later wait still waits for it
            self._pending = None
            with contextlib.suppress(BaseException):  # recorded by _recorded; raised below
                pending.result()
        if self.failure is not None:
            raise self.failure

    def close(self) -> None:
        """Ends the committing thread (after wait(): nothing is under way)."""
        if self._thread:
            self._thread.shutdown()
