"""errorcount/driver_path.py: which of spark-submit's zips give way to the installed pyspark, that
every driver script imports it before anything can import pyspark, and that it puts the stop
signals at their defaults whatever the process inherited."""

import ast
import os
import signal
import subprocess
import sys

import pytest

from errorcount.driver_path import installed_first
from tests.support import ROOT

SITE = "/venv/lib/python3.11/site-packages"
LIB = f"{SITE}/pyspark/python/lib"
INSTALLED = {f"{SITE}/pyspark/__init__.py"}
PY4J_INSTALLED = {f"{SITE}/py4j-0.10.9.9.dist-info"}
SUBMITTED = ["/work/errorcount", f"{LIB}/pyspark.zip", f"{LIB}/py4j-0.10.9.9-src.zip", "/work", "/usr/lib/python311.zip",
             "/usr/lib/python3.11", SITE]


def moved(path, files=frozenset(INSTALLED), dirs=frozenset(PY4J_INSTALLED)):
    return installed_first(path, isfile=files.__contains__, isdir=dirs.__contains__)


def test_the_zips_of_the_installed_pyspark_go_after_everything_else_in_order():
    assert moved(SUBMITTED) == ["/work/errorcount", "/work", "/usr/lib/python311.zip", "/usr/lib/python3.11", SITE,
                                f"{LIB}/pyspark.zip", f"{LIB}/py4j-0.10.9.9-src.zip"]


@pytest.mark.parametrize("path, files, dirs, why", [
    (["/opt/spark/python/lib/pyspark.zip", "/opt/spark/python/lib/py4j-0.10.9.9-src.zip", SITE], INSTALLED,
     PY4J_INSTALLED, "another Spark installation's zips: their version is the JVM's"),
    ([f"{LIB}/pyspark.zip", f"{LIB}/py4j-0.10.9.9-src.zip", "/work"], INSTALLED, PY4J_INSTALLED,
     "the site-packages holding that pyspark is not on the path"),
    (SUBMITTED, set(), PY4J_INSTALLED, "no pyspark installed where the zips lie (a bare Spark home)"),
    ([f"{LIB}/other.zip", f"{LIB}/py4j.zip", SITE], INSTALLED, PY4J_INSTALLED, "not pyspark's or py4j's zips"),
])
def test_nothing_moves_unless_the_same_pyspark_is_installed_and_importable(path, files, dirs, why):
    assert moved(path, frozenset(files), frozenset(dirs)) == path, why


def test_a_py4j_zip_of_a_version_not_installed_stays_where_it_was():
    other = [f"{LIB}/pyspark.zip", f"{LIB}/py4j-0.10.9.7-src.zip", SITE]
    assert moved(other) == [f"{LIB}/py4j-0.10.9.7-src.zip", SITE, f"{LIB}/pyspark.zip"]


@pytest.mark.parametrize("script", ["errorcount/main.py", "errorcount/recount/main.py", "bench/naive_job.py",
                                    "bench/profile_job.py", "bench/source_only_job.py", "tests/harness/exiting_driver.py"])
def test_every_driver_script_imports_it_before_anything_but_the_standard_library(script):
    imports = [node for node in ast.parse((ROOT / script).read_text(encoding="utf-8")).body
               if isinstance(node, ast.Import | ast.ImportFrom)]
    names = [alias.name if isinstance(node, ast.Import) else node.module or ""
             for node in imports for alias in (node.names if isinstance(node, ast.Import) else node.names[:1])]
    first = names.index("errorcount.driver_path")
    assert all(name.split(".")[0] in sys.stdlib_module_names for name in names[:first]), names[:first]


def test_the_stop_signals_are_at_their_defaults_after_it_even_when_the_parent_ignored_them():
    def ignore_stop_signals():  # as scripts/run.sh starts spark-submit's JVM, whose child the driver is
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGUSR1, signal.SIGUSR2):
            signal.signal(signum, signal.SIG_IGN)
    probe = ("import signal, errorcount.driver_path; "
             "print([signal.getsignal(s) is signal.SIG_DFL for s in (signal.SIGTERM, signal.SIGUSR1, signal.SIGUSR2)], "
             "signal.getsignal(signal.SIGINT) is signal.default_int_handler)")
    shown = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                           capture_output=True, text=True, check=True, timeout=60, preexec_fn=ignore_stop_signals)
    assert shown.stdout.split() == ["[True,", "True,", "True]", "True"]


def test_the_driver_writes_its_pid_for_the_wrapper_and_no_child_inherits_the_file(tmp_path):
    pid_file = tmp_path / "driver"
    pid_file.touch()  # as scripts/run.sh's mktemp leaves it
    probe = ("import os, subprocess, sys, errorcount.driver_path; print(os.getpid()); "
             "print(subprocess.run([sys.executable, '-c', 'import os; print(os.environ.get(\"ERRORCOUNT_DRIVER_PID_FILE\"))'], "
             "capture_output=True, text=True).stdout.strip())")
    shown = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "ERRORCOUNT_DRIVER_PID_FILE": str(pid_file)})
    pid, child_sees = shown.stdout.split()
    assert pid_file.read_text() == f"{pid}\n"
    assert child_sees == "None"
    assert [p.name for p in tmp_path.iterdir()] == ["driver"]  # no partial file left


def test_an_unwritable_pid_file_is_said_and_the_driver_runs_on(tmp_path):
    probe = "import errorcount.driver_path; print('imported')"
    missing = tmp_path / "gone" / "driver"
    shown = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
                           env={**os.environ, "PYTHONPATH": str(ROOT), "ERRORCOUNT_DRIVER_PID_FILE": str(missing)})
    assert shown.stdout.strip() == "imported"
    assert "cannot write the driver's pid" in shown.stderr and "No such file" in shown.stderr
