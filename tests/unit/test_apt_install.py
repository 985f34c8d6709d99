"""scripts/lib.sh's apt_install, run by two setups of a fresh checkout at once (several `make run`s):
they take turns, so apt-get never runs beside itself (it refuses: "Could not get lock"), and each
apt-get waits for dpkg's own lock too. apt-get and sudo are stubs: the stub records when each call
begins and ends, and holds every call until the test releases them."""

import os
import subprocess
import time
from pathlib import Path

from tests.support import wait_until

ROOT = Path(__file__).resolve().parents[2]
APT_GET = """#!/bin/sh
echo "begin $*" >> "$STUB_DIR/calls"
while [ ! -e "$STUB_DIR/release" ]; do sleep 0.02; done
echo "end" >> "$STUB_DIR/calls"
"""


def calls(stub_dir: Path) -> list[str]:
    path = stub_dir / "calls"
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def begun(stub_dir: Path) -> int:
    return sum(line.startswith("begin") for line in calls(stub_dir))


def test_two_setups_at_once_take_turns_on_apt_get(tmp_path):
    for name, text in {"apt-get": APT_GET, "sudo": '#!/bin/sh\nexec "$@"\n'}.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        (tmp_path / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{tmp_path}:{os.environ['PATH']}", "STUB_DIR": str(tmp_path), "TMPDIR": str(tmp_path)}
    script = "set -euo pipefail; source scripts/lib.sh; apt_install libnuma1"
    setups = [subprocess.Popen(["bash", "-c", script], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE) for _ in range(2)]
    try:
        wait_until(lambda: begun(tmp_path) >= 1, 30, "the first apt-get to begin")
        # Without turns the second setup's apt-get begins at once; give it a bounded while to show.
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline and begun(tmp_path) < 2:
            time.sleep(0.05)
        assert begun(tmp_path) == 1, calls(tmp_path)
        (tmp_path / "release").touch()
        outcomes = [setup.wait(60) for setup in setups]
    finally:
        for setup in setups:
            setup.kill()
    assert outcomes == [0, 0], [setup.stderr.read() for setup in setups]
    lines = calls(tmp_path)
    assert [line.split()[0] for line in lines] == ["begin", "end"] * 4, lines  # update and install, twice, in turn
    assert all("-o DPkg::Lock::Timeout=" in line for line in lines if line.startswith("begin")), lines
    assert sum(" install -y " in line and line.endswith(" libnuma1") for line in lines) == 2, lines
