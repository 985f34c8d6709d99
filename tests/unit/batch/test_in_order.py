"""InOrder's wait for a commit under way lets a stop signal's handler run on the main thread even
when the kernel hands the signal to another thread (CPython runs handlers on the main thread only):
a second stop must exit at once, not once a hung commit ends."""

import signal
import sys
import threading

import pytest

from errorcount.batch.in_order import InOrder
from tests.support import wait_until


class Interrupted(Exception):
    pass


def waiting_in_in_order(thread: int) -> bool:
    frame = sys._current_frames().get(thread)
    while frame is not None:
        if frame.f_code is InOrder.wait.__code__:
            return True
        frame = frame.f_back
    return False


def test_a_signal_to_the_committing_thread_interrupts_the_wait_for_its_commit():
    commits = InOrder(overlap=True)
    running, release, finished = threading.Event(), threading.Event(), threading.Event()
    main, committing = threading.get_ident(), []

    def hung_commit() -> None:
        committing.append(threading.get_ident())
        running.set()
        release.wait(60)  # a commit that hangs until the test lets it go
        finished.set()

    def signal_the_committing_thread() -> None:  # once the main thread waits in InOrder.wait
        wait_until(lambda: waiting_in_in_order(main), 60, "the main thread to wait for the commit", interval=0.01)
        signal.pthread_kill(committing[0], signal.SIGUSR1)

    def handler(_signum, _frame):
        raise Interrupted

    previous = signal.signal(signal.SIGUSR1, handler)
    try:
        commits.submit(hung_commit)
        assert running.wait(60)
        threading.Thread(target=signal_the_committing_thread, daemon=True).start()
        with pytest.raises(Interrupted):
            commits.wait()
        assert not finished.is_set(), "the wait ended with the commit, not with the signal"
    finally:
        signal.signal(signal.SIGUSR1, previous)
        release.set()
        commits.close()
