"""The shared harness starts drivers the same way however the test run itself was launched."""

import signal
import sys

from tests.harness.drivers import STOP_SIGNALS, Driver


def ignored_signals(text: str) -> set[int]:
    """The signals a /proc/<pid>/status SigIgn line marks as ignored."""
    mask = int(next(line for line in text.splitlines() if line.startswith("SigIgn:")).split()[1], 16)
    return {number for number in range(1, 65) if mask & (1 << (number - 1))}


def test_a_driver_gets_the_stop_signals_at_their_defaults_even_when_the_run_ignores_them(tmp_path):
    """As from a non-interactive shell's background job (`pytest &`): SIGINT and SIGQUIT ignored.
    Exec keeps an ignored signal ignored, and run.sh (bash) could then never pass Ctrl-C on."""
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in STOP_SIGNALS}
    try:
        log = tmp_path / "driver.log"
        probe = Driver(log, {}, command=[sys.executable, "-c", "print(open('/proc/self/status').read())"])
        assert probe.wait(30) == 0
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    assert ignored_signals(log.read_text()) & {int(s) for s in STOP_SIGNALS} == set()
