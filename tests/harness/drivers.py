"""The one harness the tests, make bench and make chaos share: a real spark-submit driver started
through scripts/run.sh, and waiting on a condition. (Writing to Kafka is errorcount/tools/produce.py's
Writer; reading a driver's log is errorcount/observe/logline.py.)"""

import contextlib
import os
import random
import re
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from errorcount.tools import ROOT, kafka_admin
from errorcount.tools.localenv import local_stack

T = TypeVar("T")
# One errorcount_* sample of a Prometheus text exposition: name, labels, value.
METRIC = re.compile(r'^(errorcount_\w+)\{([^}]*)\} (\S+)$', re.MULTILINE)


class WaitTimeout(AssertionError):
    """A condition did not hold in time (an AssertionError, so a test fails rather than errors)."""


def wait_until(condition: Callable[[], T], timeout: float, what: str, interval: float = 0.2) -> T:
    """Polls condition() until it returns a truthy value, which it returns; WaitTimeout after
    `timeout` seconds. condition() may raise to stop waiting early (e.g. a driver died).
    Every `interval` s: a wait ends on average half an interval after its condition holds, and
    the suites wait hundreds of times (a poll costs the caller a query or two, not the driver)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise WaitTimeout(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def ui_port() -> int:
    """A free port for a Spark UI a test reads back, under the kernel's ephemeral range (where
    free_port's come from, and every client socket's: one could take it before the driver binds
    it) and drawn at random from a wide range, so that two suites side by side (.ci/run) do not
    pick the same one. A reader still checks the application's name: a taken port makes Spark
    bind the next one, and the name tells another driver's UI from this one's."""
    low = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text(encoding="utf-8").split()[0])
    rng = random.SystemRandom()
    while True:
        port = rng.randrange(10000, min(low, 30000))
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port


def scrape(endpoint: str) -> dict[tuple[str, str], float]:
    """A driver's errorcount_* series over HTTP, from host:port: {(name, labels): value}."""
    text = urllib.request.urlopen(f"http://{endpoint}/metrics", timeout=10).read().decode()
    return {(name, labels): float(value) for name, labels, value in METRIC.findall(text)}


def served(driver: "Driver", endpoint: str, name: str, labels: str) -> float | None:
    """One errorcount_* sample a running driver serves at host:port; None while its endpoint does
    not listen yet or lacks the sample. Fails at once if the driver died (a wait_until condition)."""
    driver.check_alive()
    try:
        return scrape(endpoint).get((name, labels))
    except OSError:  # not listening yet
        return None


def driver_env(job: str, topic: str) -> dict[str, str]:
    """The settings that point a driver at the local stack: job name, topic, broker, SQL server; and
    COUNT_LINES=false: the suites' expected counts were written for ERROR lines alone, from before
    it was on by default; a test of lines sets it (after these), as do the tests of the defaults."""
    stack = local_stack()
    return {"JOB_NAME": job, "KAFKA_TOPIC": topic, "KAFKA_BOOTSTRAP_SERVERS": kafka_admin.bootstrap(),
            "MYSQL_PORT": stack["MYSQL_PORT"], "MYSQL_DATABASE": stack["MYSQL_DATABASE"], "MYSQL_USER": stack["MYSQL_USER"],
            "COUNT_LINES": "false"}


STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def ignore_stop_signals() -> None:
    """In the driver's process, before exec: SIGINT and SIGTERM ignored, as a script's background job
    or a supervisor's child may start (scripts/run.sh must hear a stop anyway)."""
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)


def default_stop_signals() -> None:
    """In the driver's process, before exec: the stop signals at their defaults. A signal ignored
    when a process starts stays ignored across exec, and bash cannot trap one it inherited ignored:
    a test started from a non-interactive shell's background job (SIGINT ignored, as some CI runners
    start it) would otherwise test how it was launched, not the job."""
    for signum in STOP_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)


class DriverDied(AssertionError):
    """The driver exited while something waited for it."""


class Driver:
    """One spark-submit driver through `scripts/run.sh job` (or `command`, run in the checkout), in
    its own process group, its output appended to `log_path`. `env` adds to this process's
    environment; run.sh's options: `driver` another driver script than errorcount/main.py (a path
    in the checkout), `create_topic` False not to create KAFKA_TOPIC's topics first; `args` the job's flags;
    `ignored_signals`: started with SIGINT and SIGTERM ignored (else at their defaults)."""

    def __init__(self, log_path: Path, env: dict[str, str], args: tuple[str, ...] = (), driver: str | None = None,
                 create_topic: bool = True, command: list[str] | None = None, ignored_signals: bool = False):
        log_path.parent.mkdir(parents=True, exist_ok=True)
        self.log_path, self.driver = log_path, driver
        options = [*(["--driver", str(ROOT / driver)] if driver else []), *([] if create_topic else ["--no-topic"])]
        self.log_from = log_path.stat().st_size if log_path.exists() else 0  # this driver's part of a shared log
        self.launched = time.time()
        with open(log_path, "ab") as log:
            self.process = subprocess.Popen(command or [str(ROOT / "scripts" / "run.sh"), "job", *options, *args], cwd=ROOT,
                                            env={**os.environ, **env},
                                            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                            start_new_session=True,
                                            preexec_fn=ignore_stop_signals if ignored_signals else default_stop_signals)

    def log(self) -> str:
        """This driver's output so far."""
        with open(self.log_path, "rb") as handle:
            handle.seek(self.log_from)
            return handle.read().decode("utf-8", errors="replace")

    def running(self) -> bool:
        return self.process.poll() is None

    def check_alive(self) -> None:
        if not self.running():
            raise DriverDied(f"driver exited with {self.process.returncode}; log {self.log_path}:\n{self.log()[-3000:]}")

    def wait(self, timeout: float) -> int:
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            raise WaitTimeout(f"driver still running after {timeout} s; log: {self.log_path}") from None

    def stop(self, timeout: float = 60, kill_after: bool = False) -> int:
        """SIGTERM to the wrapper, which passes it to the Python driver: it stops at a batch
        boundary. After `timeout` s: WaitTimeout, or with kill_after a SIGKILL (exit -9)."""
        if self.running():
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.wait(timeout)
        except WaitTimeout:
            if not kill_after:
                raise
            self.kill()
            return self.process.returncode

    def stop_group(self, timeout: float = 60) -> int:
        """SIGTERM to every process of the driver's group at once (wrapper, JVM, Python), as systemd's
        default stop, timeout(1) or kill -- -PGID send it: still one request, a batch-boundary stop."""
        if self.running():
            os.killpg(self.process.pid, signal.SIGTERM)
        return self.wait(timeout)

    def kill(self) -> None:
        """Everything the driver is (wrapper, JVM, Python) dies at once, as with a lost machine."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(60)
