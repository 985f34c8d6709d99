"""Driver: read config, build the session, run the job (errorcount/supervisor.py), exit with its code.

Run with spark-submit (scripts/run.sh). Exit codes are listed in errorcount/errors.py.
"""

import logging
import logging.handlers
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

import errorcount.driver_path  # noqa: F401  (first: the installed pyspark before spark-submit's zips)
from errorcount import __version__, errors, faults
from errorcount.config.load import load_config
from errorcount.driver_path import FORWARDED
from errorcount.errors import JobStop
from errorcount.observe import logline
from errorcount.session import build_session
from errorcount.supervisor import Job

log = logging.getLogger("errorcount.main")  # spark-submit runs this file as __main__
ROLL_BYTES, ROLL_FILES = 50 * 1024 * 1024, 10  # as conf/log4j2-yarn.properties does for Spark's log


# Stop signals less than this apart are copies of one request (StopRequests).
SAME_REQUEST_S = 1.0


class StopRequests:
    """Which stop signals are requests of their own. One stop reaches the driver as several copies,
    and how many depends on how it was started: a signal to its whole process group or cgroup
    (systemd's default stop, timeout(1), kill -- -PGID) arrives directly and as scripts/run.sh's
    forwarded copy (errorcount.driver_path.FORWARDED), and each wrapper in between may pass on one
    more (GNU make forwards SIGTERM to its recipe, which run.sh forwards again). So copies are told
    from requests by time, not by count: a stop signal less than SAME_REQUEST_S after the previous
    one is the same request; one that comes later is a new request (the operator's second Ctrl-C).
    The window runs from the last copy, so a late copy in a burst never reads as a second request."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.last: float | None = None  # when the last stop signal arrived

    def is_new(self) -> bool:
        now = self.clock()
        new = self.last is None or now - self.last >= SAME_REQUEST_S
        self.last = now
        return new


def install_signal_handlers(stop: threading.Event, requests: StopRequests) -> None:
    """First stop request (SIGTERM or SIGINT, sent to the driver or forwarded by scripts/run.sh):
    stop at the next batch boundary. Second: exit at once (the open transaction, if any, is rolled
    back by MySQL when the connection drops)."""
    def handle(received, _frame):
        signum, forwarded = FORWARDED.get(received, received), received in FORWARDED
        name = signal.Signals(signum).name
        if not requests.is_new():
            log.info("%s also received %s within %g s: the same stop request (a signal to the whole process group "
                     "reaches the driver directly, through scripts/run.sh and through what started it)", name,
                     "through scripts/run.sh" if forwarded else "directly", SAME_REQUEST_S)
            return
        if stop.is_set():
            log.warning("second stop signal: exiting now")
            os._exit(errors.EXIT_INTERRUPTED)
        log.info("%s received: stopping after the in-flight batch (send it again, a second or more later, to exit "
                 "at once)", name)
        stop.set()

    for signum in (signal.SIGTERM, signal.SIGINT, *FORWARDED):
        signal.signal(signum, handle)


def configure_logging(env) -> None:
    """To stderr; in a YARN container (LOG_DIRS set by the NodeManager) to a rolling file in its
    log directory instead, since YARN keeps a container's stdout/stderr as one ever-growing file."""
    log_dir = (env.get("LOG_DIRS") or "").split(",")[0]
    handler: logging.Handler
    if log_dir:
        handler = logging.handlers.RotatingFileHandler(os.path.join(log_dir, "errorcount-driver.log"),
                                                       maxBytes=ROLL_BYTES, backupCount=ROLL_FILES)
    else:
        handler = logging.StreamHandler(sys.stderr)
    logging.basicConfig(handlers=[handler], level=logging.INFO, format=logline.LOG_FORMAT)


def start_logging(env) -> None:
    """Every driver script's first step: configure_logging, times in UTC (like the minute keys),
    py4j quiet (one line per callback otherwise)."""
    configure_logging(env)
    logging.Formatter.converter = time.gmtime
    logging.getLogger("py4j").setLevel(logging.WARNING)


def exit_code(run: Callable[[], int], logger: logging.Logger) -> int:
    """run()'s exit code; a JobStop's own, its message logged, when it stops instead."""
    try:
        return run()
    except JobStop as failure:
        logger.error("%s [exit %d]", failure.message, failure.exit_code)
        return failure.exit_code


def main(argv: list[str] | None = None) -> int:
    """The driver: config, session, the job (source -> classify -> aggregate -> store), exit code."""
    start_logging(os.environ)
    stop, requests = threading.Event(), StopRequests()
    install_signal_handlers(stop, requests)

    def run() -> int:
        cfg = load_config(sys.argv[1:] if argv is None else argv, os.environ)
        logging.getLogger().setLevel(cfg.log_level)
        log.info("errorcount %s, job %r, topics %r", __version__, cfg.job_name, cfg.kafka_topic or cfg.kafka_topic_pattern)
        spark = build_session(cfg.job_name)
        install_signal_handlers(stop, requests)  # again: SparkContext put its own SIGINT handler in place
        try:
            return Job(cfg, spark, stop, faults.from_env(os.environ), faults.driver_clock(os.environ)).run()
        finally:
            spark.stop()
    return exit_code(run, log)


if __name__ == "__main__":
    sys.exit(main())
