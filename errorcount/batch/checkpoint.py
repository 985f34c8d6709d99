"""The query's throwaway checkpoint directory: fresh per query, removed after it, and swept
up after a driver that was killed before it could remove its own.

MySQL holds the offsets, so a checkpoint is never read again; but a SIGKILLed or OOM-killed
driver leaves its directory behind, and a job restarted for months would fill the temp dir.
The directory name carries the driver's PID so a later driver can tell a dead one's leftovers
from a live driver's directory on the same host.
"""

import contextlib
import logging
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from errorcount.offsets import Position, from_spark_json

log = logging.getLogger(__name__)
PREFIX = "errorcount-checkpoint-"


def is_alive(pid: int) -> bool:
    """True if a process with this PID exists (including another user's)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def owner_pid(path: Path) -> int | None:
    """The PID in a checkpoint directory's name (PREFIX + pid + '-' + random), or None for a
    name of another shape (older drivers named theirs without a PID: left alone)."""
    pid, _, rest = path.name[len(PREFIX):].partition("-")
    return int(pid) if path.name.startswith(PREFIX) and pid.isdigit() and rest else None


def sweep_stale(parent: str | None = None) -> list[Path]:
    """Removes checkpoint directories under `parent` (the temp dir) whose driver is gone;
    returns what it removed. A PID reused by an unrelated process only delays the sweep."""
    removed = []
    for path in Path(parent or tempfile.gettempdir()).glob(PREFIX + "*"):
        pid = owner_pid(path)
        if pid is not None and pid != os.getpid() and path.is_dir() and not is_alive(pid):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    if removed:
        log.info("removed %d checkpoint directories left by drivers that were killed", len(removed))
    return removed


@contextlib.contextmanager
def fresh(parent: str | None = None) -> Iterator[str]:
    """Sweeps up dead drivers' directories, then yields a new, empty checkpoint directory
    owned by this driver, and removes it when the block ends, however it ends."""
    sweep_stale(parent)
    location = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-", dir=parent)
    try:
        yield location
    finally:
        shutil.rmtree(location, ignore_errors=True)


def planned_offsets(location: str, batch_id: int) -> Position | None:
    """The end offsets Spark planned for micro-batch `batch_id`, every topic, from the checkpoint's
    offset log (written before the batch runs: a 'v1' line, the batch metadata, then one JSON line
    per source), or None if it cannot be read. The log's format is Spark's (stable since its v1):
    it chooses how a batch runs, and where its offsets end (offsets.batch_end, which falls back to
    the rows' own max offset + 1 when the log is unreadable or contradicted by them)."""
    try:
        last = (Path(location) / "offsets" / str(batch_id)).read_text(encoding="utf-8").splitlines()[-1]
        return from_spark_json(last) or None  # {}: a half-written entry
    except (OSError, ValueError, LookupError, TypeError, AttributeError):
        return None
