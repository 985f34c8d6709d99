"""Processes under measurement: spark-submit drivers started through scripts/run.sh, the
pure-Python consumer, a resident-memory sampler, and the job's batch log lines."""

import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from errorcount.observe import logline
from tests.harness import drivers as harness
from tests.harness import processes

ROOT = Path(__file__).resolve().parents[1]
NMT_LINE = re.compile(r"^-\s+(\S[^(]*?)\s+\(reserved=\d+KB, committed=(\d+)KB", re.MULTILINE)


@dataclass(frozen=True)
class BatchLog:
    """One committed batch as the driver logged it: end time (epoch s), records, and how long
    its Spark job, MySQL commit and the whole batch took (ms); the counts rows its transaction
    upserted (minutes and (minute, series) rows; 0 from a log without them)."""

    done: float
    records: int
    count_ms: int
    commit_ms: int
    batch_ms: int
    rows: int = 0


def pyspark_jars() -> str:
    """The directory of the jars pyspark ships (Spark's own), as the venv's pyspark has them: the
    class path of the bench's Java tools."""
    return subprocess.run([str(ROOT / ".venv" / "bin" / "python"), "-c", "import os, pyspark; "
                           "print(os.path.join(os.path.dirname(pyspark.__file__), 'jars'))"],
                          check=True, capture_output=True, text=True).stdout.strip()

def batch_logs(text: str) -> list[BatchLog]:
    """The driver's batch lines (errorcount/observe/logline.py)."""
    return [BatchLog(r.logged_at, r.integer("records"), r.integer("count_ms"), r.integer("commit_ms"), r.integer("batch_ms"),
                     sum(int(r.fields.get(key, 0)) for key in ("minutes", "series")))
            for r in logline.parse(text, logline.BATCH)]


def warm_rate(batches: list[BatchLog]) -> tuple[float | None, int]:
    """(records/s, batches) over the second half of the batches, timed from the end of the batch
    before them (so the gaps between batches count). The JIT keeps speeding batches up for
    several of them: this is the rate a longer catch-up settles at. No rate with fewer than 2
    batches."""
    half = len(batches) // 2
    warm = batches[half:]
    if not half:
        return None, len(warm)
    seconds = batches[-1].done - batches[half - 1].done
    return (sum(b.records for b in warm) / seconds if seconds > 0 else None), len(warm)


def spark_steps_p50(text: str, skip: int = 10) -> dict[str, int]:
    """Median of each step of Spark's own batch timing (errorcount/observe/progress.py's lines), after `skip` batches."""
    runs = [{name: int(ms) for name, ms in r.fields.items() if name != "rows"}
            for r in logline.parse(text, logline.SPARK_BATCH)][skip:]
    return {name: sorted(run[name] for run in runs)[len(runs) // 2] for name in (runs[0] if runs else {})}


def descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and all its descendants still running."""
    total = 0
    for each in [pid, *descendants(pid)]:
        try:
            with open(f"/proc/{each}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (clock ticks)
        except (OSError, IndexError, ValueError):
            continue
    return total / os.sysconf("SC_CLK_TCK")


def sql_server_cpu() -> float | None:
    """CPU seconds the stack's SQL server (MYSQL_SERVER, from the PID file scripts/db.sh keeps) has
    used so far; None when it does not run here. Read before and after a catch-up: what its
    commits cost the server."""
    try:
        pid = processes.pid_of(processes.sql_server())
        with open(f"/proc/{pid}/stat"):  # running: cpu_seconds counts a gone process as 0
            pass
    except (OSError, ValueError):
        return None
    return cpu_seconds(pid)


class Steal:
    """The share of this VM's CPU time the hypervisor gave to others (/proc/stat 'steal') between
    start and stop: high steal makes wall-clock figures of that phase slower than the code."""

    def __init__(self):
        self.start = self._read()

    @staticmethod
    def _read() -> tuple[int, int]:
        with open("/proc/stat") as stat:
            values = [int(v) for v in stat.readline().split()[1:]]
        return values[7] if len(values) > 7 else 0, sum(values)

    def share(self) -> float:
        steal, total = self._read()
        return (steal - self.start[0]) / max(1, total - self.start[1])


def rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as raw:
            return raw.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def is_java(line: str) -> bool:
    return line.startswith("java ") or "/bin/java " in line


def native_memory_mb(pid: int | None) -> dict[str, int]:
    """The JVM's committed memory per Native Memory Tracking category, MB (needs the JVM started
    with -XX:NativeMemoryTracking=summary); {} when jcmd cannot tell."""
    if pid is None:
        return {}
    jcmd = shutil.which("jcmd") or str(Path(os.path.realpath(shutil.which("java") or "java")).parent / "jcmd")
    try:
        out = subprocess.run([jcmd, str(pid), "VM.native_memory", "summary"], capture_output=True, text=True,
                             timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    return {name.strip(): int(kb) // 1024 for name, kb in NMT_LINE.findall(out)}


@dataclass
class RssSampler:
    """Samples, every `interval` s, the RSS of the driver JVM and of the Python driver process
    (the python process whose command line names `script`) below `pid`."""

    pid: int
    script: str
    interval: float = 0.5
    samples: list[tuple[float, float, float]] = field(default_factory=list)  # (time, jvm MB, python MB)
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> "RssSampler":
        threading.Thread(target=self._run, daemon=True).start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            jvm = python = 0.0
            for pid in descendants(self.pid) + [self.pid]:  # parents before their children
                line = cmdline(pid)
                if is_java(line):
                    # Only the first: Hadoop's local file system forks the JVM to run chmod, and
                    # a child not yet exec'ed has the JVM's command line and shares its pages.
                    jvm = jvm or rss_mb(pid)
                elif self.script in line and "python" in line:
                    python += rss_mb(pid)
            self.samples.append((time.time(), jvm, python))

    def stop(self) -> list[tuple[float, float, float]]:
        self._stop.set()
        return self.samples


class Driver(harness.Driver):
    """A driver under measurement: the shared launcher (tests/harness/drivers.py) with a
    resident-memory sampler; a stop that hangs ends in a SIGKILL rather than a failed run."""

    def __init__(self, log_path: Path, env: dict[str, str], driver: str = "errorcount/main.py"):
        super().__init__(log_path, env, driver=driver, create_topic=False)  # the bench makes its topics
        self.rss = RssSampler(self.process.pid, os.path.basename(driver)).start()

    def jvm_pid(self) -> int | None:
        return next((pid for pid in descendants(self.process.pid) if is_java(cmdline(pid))), None)

    def stop(self, timeout: float = 120, kill_after: bool = True) -> int:
        self.rss.stop()
        return super().stop(timeout, kill_after)
