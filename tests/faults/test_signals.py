"""A second stop signal exits at once (code 130); whatever was in flight is not half-committed."""

import signal
import time
from datetime import datetime

import produce
import pytest

from app.errors import EXIT_INTERRUPTED
from tests.support import Produced, catch_up, error_log, ledger, stored_offsets, unique

START = datetime(2038, 8, 8, 8, 0)
pytestmark = pytest.mark.slow


def test_second_signal_exits_at_once_and_leaves_mysql_consistent(clean_error_log, make_topic, start_driver):
    admin = clean_error_log
    topic, job = make_topic(partitions=2), unique("job")
    produced = Produced(topic)
    produced.add(produce.generate(800, seed=91, start=START, minutes=5))
    driver = start_driver(job, topic, env={"MAX_OFFSETS_PER_TRIGGER": "200"})
    catch_up(admin, job, topic, driver)
    produced.add(produce.generate(4000, seed=92, start=START, minutes=5))  # batches in flight again
    driver.process.send_signal(signal.SIGTERM)
    time.sleep(0.2)  # the gap between an operator's two Ctrl-C presses, not a synchronisation
    driver.process.send_signal(signal.SIGTERM)
    assert driver.wait(60) == EXIT_INTERRUPTED, driver.log()[-2000:]
    assert "second stop signal: exiting now" in driver.log()
    stored = stored_offsets(admin, job, topic)
    assert error_log(admin) == produced.counts_below(stored)
    assert ledger(admin, job)[1] == sum(stored.values())
