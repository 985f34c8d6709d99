"""scripts/lib.sh's has_lib under `set -o pipefail` (as every script runs): a library the linker's
cache lists is found however long the listing is. Piped into `grep -q`, ldconfig died of SIGPIPE
once grep had its answer, which pipefail turned into "missing" (and setup.sh into an apt-get run)."""

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# A listing as `ldconfig -p` prints it: the wanted library first, then far more than a pipe holds
# (64 KiB), so a reader that stops at the first line always leaves the writer writing.
LISTING = ("\tlibnuma.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libnuma.so.1\n"
           + "".join(f"\tlibfiller{i}.so.1 (libc6,x86-64) => /lib/x86_64-linux-gnu/libfiller{i}.so.1\n" for i in range(20_000)))


def has_lib(stub_dir: Path, pattern: str) -> int:
    env = {**os.environ, "PATH": f"{stub_dir}:{os.environ['PATH']}"}
    script = f"set -euo pipefail; source scripts/lib.sh; has_lib '{pattern}'"
    return subprocess.run(["bash", "-c", script], cwd=ROOT, env=env, capture_output=True, timeout=30, check=False).returncode


def test_a_listed_library_is_found_when_the_listing_outgrows_a_pipe(tmp_path):
    (tmp_path / "listing").write_text(LISTING, encoding="utf-8")
    stub = tmp_path / "ldconfig"
    stub.write_text(f"#!/bin/sh\n[ \"$1\" = -p ] && exec cat '{tmp_path / 'listing'}'\nexit 1\n", encoding="utf-8")
    stub.chmod(0o755)
    assert len(LISTING.encode()) > 4 * 65536
    assert [has_lib(tmp_path, r"libnuma\.so\.1") for _ in range(3)] == [0, 0, 0]
    assert has_lib(tmp_path, r"libfiller19999\.so\.1") == 0
    assert has_lib(tmp_path, r"libaio\.so\.1") != 0  # not listed: missing
