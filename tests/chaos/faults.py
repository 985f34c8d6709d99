"""What make chaos does to a process: SIGKILL the SQL server and start it again (crash recovery),
or SIGSTOP the driver, the SQL server or the Kafka broker for a while (a process that hangs rather
than dies: a paused VM, a stalled disk)."""

import os
import signal
import subprocess
from collections.abc import Callable

from errorcount.tools import ROOT
from tests.harness import drivers as harness
from tests.harness.processes import pid_of, sql_server

PAUSE_S = (3.0, 60.0)  # how long a paused process stays stopped: up to the job's MYSQL_IDLE_TIMEOUT


def pauses_text(pause_s: tuple[float, float]) -> str:
    return f"{pause_s[0]:.0f} to {pause_s[1]:.0f} s"


PAUSES = pauses_text(PAUSE_S)  # in the report's intro and the help


def kill_server() -> None:
    """SIGKILLs the SQL server (no shutdown), then starts it again: InnoDB's crash recovery."""
    subprocess.run([str(ROOT / "scripts" / "db.sh"), "kill"], check=True, timeout=60)
    subprocess.run([str(ROOT / "scripts" / "db.sh"), "start"], check=True, timeout=180,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def stop_process(target: str, driver: harness.Driver | None) -> Callable[[], None]:
    """SIGSTOPs the target: 'driver' (the running `driver`'s whole process group: wrapper, JVM,
    Python; nothing when none runs), 'server' (the SQL server) or 'broker'. Returns what lets it go
    on (SIGCONT); the rest of the run goes on meanwhile."""
    if target == "driver":
        if driver is None or not driver.running():
            return lambda: None
        group = driver.process.pid
        os.killpg(group, signal.SIGSTOP)
        return lambda: os.killpg(group, signal.SIGCONT)
    pid = pid_of(sql_server() if target == "server" else "kafka")
    os.kill(pid, signal.SIGSTOP)
    return lambda: os.kill(pid, signal.SIGCONT)
