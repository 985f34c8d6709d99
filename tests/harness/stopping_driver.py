"""A driver script (`make run ARGS='--driver tests/harness/stopping_driver.py --no-topic'`) that stops as
the job's driver does, without Spark or services: the job's own stop handling (errorcount.main's
signal handlers and StopRequests), then a batch in flight of STOPPING_DRIVER_BATCH_S seconds (0.5)
during which more copies of the stop may arrive, then the job's clean-stop line and exit 0. A second
request exits 130 as the job's does. For the tests of how a stop signal fans out through make and
scripts/run.sh (tests/faults/test_stop_fanout.py): seconds per start instead of a driver's ten."""

import errorcount.driver_path  # noqa: F401  # isort: skip
import logging
import os
import sys
import threading
import time

from errorcount.main import StopRequests, install_signal_handlers, start_logging

log = logging.getLogger("errorcount.supervisor")  # the logger the job's clean-stop line comes from

if __name__ == "__main__":
    start_logging(os.environ)
    stop = threading.Event()
    install_signal_handlers(stop, StopRequests())
    log.info("stopping_driver: pid %d runs; waiting for a stop", os.getpid())
    # In slices, as the job's own waits: CPython runs a signal's handler on the main thread only,
    # and a signal the kernel hands to another of the process's threads does not wake a wait
    # without a timeout (it would hold the stop until something else woke the main thread).
    while not stop.wait(0.1):
        pass
    time.sleep(float(os.environ.get("STOPPING_DRIVER_BATCH_S", "0.5")))  # the batch in flight commits
    log.info("stopped cleanly at a batch boundary; stored offsets (none: stopping_driver)")
    sys.exit(0)
