import os
import subprocess
import sys

from app import checkpoint


def dead_pid() -> int:
    """The PID of a process that has exited and been reaped."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def test_owner_pid_reads_the_name_and_ignores_other_shapes(tmp_path):
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-4242-ab_c9") == 4242
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-x8k2lq0z") is None  # older, PID-less name
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-4242") is None
    assert checkpoint.owner_pid(tmp_path / "errorcount-checkpoint-") is None
    assert checkpoint.owner_pid(tmp_path / "other-4242-abc") is None


def test_fresh_names_the_directory_after_this_process_and_removes_it(tmp_path):
    with checkpoint.fresh(str(tmp_path)) as created:
        assert os.path.isdir(created)
        assert checkpoint.owner_pid(tmp_path / os.path.basename(created)) == os.getpid()
    assert not os.path.exists(created)


def test_sweep_removes_only_dead_drivers_directories(tmp_path):
    dead = tmp_path / f"errorcount-checkpoint-{dead_pid()}-aaaa"
    live = tmp_path / f"errorcount-checkpoint-{os.getppid()}-bbbb"
    own = tmp_path / f"errorcount-checkpoint-{os.getpid()}-cccc"
    legacy = tmp_path / "errorcount-checkpoint-dddd"
    for path in (dead, live, own, legacy):
        (path / "offsets").mkdir(parents=True)
    unrelated = tmp_path / f"errorcount-checkpoint-{dead_pid()}-file"
    unrelated.write_text("not a directory")

    assert checkpoint.sweep_stale(str(tmp_path)) == [dead]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in (live, own, legacy, unrelated))
