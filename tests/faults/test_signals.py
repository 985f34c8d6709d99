"""A second stop signal exits at once (code 130); whatever was in flight is not half-committed.
The log names the signal that arrived (Ctrl-C is SIGINT), also when the wrapper started with the
stop signals ignored."""

import signal
from datetime import datetime

import pytest

from errorcount.errors import EXIT_INTERRUPTED
from tests.support import wait_until

START = datetime(2038, 8, 8, 8, 0)
pytestmark = pytest.mark.slow


def test_second_signal_exits_at_once_and_leaves_mysql_consistent(scenario):
    run = scenario(2, START)
    run.write(800, seed=91, minutes=5)
    # Started as a script's background job that ignores SIGTERM too: run.sh must hear both anyway.
    driver = run.caught_up_driver(env={"MAX_OFFSETS_PER_TRIGGER": "200"}, ignored_signals=True)
    run.write(4000, seed=92, minutes=5)  # batches in flight again
    driver.process.send_signal(signal.SIGINT)  # what Ctrl-C sends: the wrapper passes the same signal on
    wait_until(lambda: "SIGINT received" in driver.log(), 30, "the first signal to be seen", interval=0.02)
    driver.process.send_signal(signal.SIGTERM)
    assert driver.wait(60) == EXIT_INTERRUPTED, driver.log()[-2000:]
    assert "second stop signal: exiting now" in driver.log()
    stored = run.offsets()
    assert run.counts() == run.produced.counts_below(stored)
    assert run.ledger()[1] == sum(stored.values())
