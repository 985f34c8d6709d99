"""One stop signal to the whole process group of `make run` is one stop request, however many copies
make, scripts/run.sh and the JVM pass on: the batch in flight ends, the job logs its clean stop and
exits 0, and make then ends as make does on that signal. Each way is tried REPEATS times, since the
copies race: in a terminal (make the foreground process group of a pseudo-terminal, where Ctrl-C and
`kill -- -PGID` reach it) and started as a script's background job (SIGINT ignored, as a
non-interactive shell starts it). GNU make passes SIGTERM on to its recipe once more, and dies of a
stop signal itself once its recipe has ended, unless it ignores that signal.

The driver is tests/harness/stopping_driver.py, the job's own stop handling without Spark (seconds
per start instead of a driver's ten); tests/integration/test_end_to_end.py stops the real job by a
signal to the whole group of `make run`."""

import fcntl
import os
import pty
import signal
import subprocess
import termios
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from errorcount.tools import ROOT
from tests.support import TEST_DRIVER, wait_until

pytestmark = pytest.mark.slow
REPEATS = 5  # per way of starting it: 10 stops per signal (CI time: ~3.5 s each)
AT_ONCE = 3  # runs side by side: each is mostly one JVM starting
ARGS = "ARGS=--driver tests/harness/stopping_driver.py --no-topic"
CLEAN = "stopped cleanly at a batch boundary"
JOB_EXITED_0 = "[run.sh] the job exited 0 "


class MakeRun:
    """`make run` with the stand-in driver, in a process group of its own, its output collected."""

    def __init__(self, terminal: bool):
        self.output: list[str] = []
        if terminal:
            master, slave = pty.openpty()

            def controlling_terminal() -> None:  # after setsid: the pty becomes this session's terminal
                fcntl.ioctl(0, termios.TIOCSCTTY, 0)
                default_signals()

            self.process = subprocess.Popen(["make", "run", ARGS], cwd=ROOT, env={**os.environ, **TEST_DRIVER},
                                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                                            preexec_fn=controlling_terminal)
            os.close(slave)
            reader = threading.Thread(target=self.read_terminal, args=(master,), daemon=True)
        else:
            self.process = subprocess.Popen(["make", "run", ARGS], cwd=ROOT, env={**os.environ, **TEST_DRIVER},
                                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                            start_new_session=True, preexec_fn=background_job_signals)
            reader = threading.Thread(target=self.read_pipe, daemon=True)
        reader.start()
        self.reader = reader

    def read_terminal(self, master: int) -> None:
        try:
            while chunk := os.read(master, 65536):
                self.output.append(chunk.decode(errors="replace"))
        except OSError:  # EIO: every process holding the terminal has ended
            pass
        finally:
            os.close(master)

    def read_pipe(self) -> None:
        assert self.process.stdout is not None
        for chunk in iter(lambda: self.process.stdout.read1(65536), b""):  # type: ignore[union-attr]
            self.output.append(chunk.decode(errors="replace"))

    def text(self) -> str:
        return "".join(self.output)

    def stop(self, signum: int) -> tuple[int, str]:
        """Once the driver runs, `signum` to the whole process group; make's exit status and the output."""
        try:
            wait_until(lambda: "waiting for a stop" in self.text() or self.process.poll() is not None, 120,
                       "the stand-in driver to run", interval=0.05)
            if self.process.poll() is None:  # else it ended before the stop: the caller's checks say how
                os.killpg(self.process.pid, signum)
            status = self.process.wait(60)
        finally:
            if self.process.poll() is None:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(60)
        self.reader.join(10)
        return status, self.text()


def default_signals() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, signal.SIG_DFL)


def background_job_signals() -> None:
    """As a non-interactive shell starts `make run &`: SIGINT ignored, SIGTERM at its default."""
    default_signals()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "script"])
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_one_signal_to_the_group_of_make_run_is_one_clean_stop(terminal, signum):
    # make dies of the signal once its recipe ended, unless it ignores it (a script's background job: SIGINT)
    make_status = 0 if (not terminal and signum == signal.SIGINT) else -signum
    with ThreadPoolExecutor(AT_ONCE) as pool:
        results = list(pool.map(lambda _: MakeRun(terminal).stop(signum), range(REPEATS)))
    failures = [output[-3000:] for status, output in results
                if status != make_status or CLEAN not in output or JOB_EXITED_0 not in output
                or "second stop signal" in output or "make: ***" in output]
    assert not failures, f"{len(failures)} of {REPEATS} stops were not one clean stop with exit 0:\n" + failures[0]
    name = signal.Signals(signum).name
    assert all(f"{name} received: stopping after the in-flight batch" in output for _, output in results)
    if not terminal:  # the driver shares the group: copies reached it, and were told from requests
        assert all(f"{name} also received" in output for _, output in results)
