"""Imported first by every spark-submit driver script, before anything imports pyspark: puts the
installed pyspark (and py4j) ahead of the zips of them spark-submit puts first on sys.path.

spark-submit's PythonRunner puts $SPARK_HOME/python/lib/pyspark.zip and py4j-<v>-src.zip before
PYTHONPATH and site-packages. Python compiles modules imported from a zip at every start (it cannot
cache their bytecode there): ~200 of pyspark's (measured: importing pyspark.sql from the zips
1.2-1.3 s of CPU, from the installed package 0.2-0.3 s; docs/performance.md). When SPARK_HOME is
the pip-installed pyspark itself (scripts/run.sh), the zips hold the very sources installed beside
them, so the installed copies are imported instead. A zip of any other Spark installation stays
where spark-submit put it (its version is the JVM's), as do the zips a YARN container is given
(they lie in its working directory, not in the shipped venv's pyspark).

It also puts the stop signals in a known state, whatever the process inherited (default_stop_signals),
and tells scripts/run.sh that the driver runs (announce_started).
"""

import os
import re
import signal
import sys

PY4J_ZIP = re.compile(r"py4j-(.+)-src\.zip")
# scripts/run.sh passes a stop signal it gets on to the Python driver as another signal, so that the
# driver tells a forwarded copy from the same signal sent to it directly (errorcount/main.py).
FORWARDED = {signal.SIGUSR1: signal.SIGINT, signal.SIGUSR2: signal.SIGTERM}


def installed_first(path: list[str], isfile=os.path.isfile, isdir=os.path.isdir) -> list[str]:
    """Pure but for the file checks: `path` with every pyspark.zip or py4j zip moved to its end that
    lies in <P>/pyspark/python/lib for an entry P of `path` where that pyspark is installed (a py4j
    zip: and py4j of the zip's version installed in P). Nothing else moves; a moved zip still serves
    what nothing before it does."""
    def shadowed(entry: str) -> bool:
        lib, name = os.path.split(entry)
        py4j = PY4J_ZIP.fullmatch(name)
        if name != "pyspark.zip" and py4j is None:
            return False
        home = os.path.dirname(os.path.dirname(lib))  # <P>/pyspark
        site = os.path.dirname(home)
        if os.path.join(home, "python", "lib") != lib or site not in path or not isfile(os.path.join(home, "__init__.py")):
            return False
        return py4j is None or isdir(os.path.join(site, f"py4j-{py4j.group(1)}.dist-info"))

    moved = [entry for entry in path if shadowed(entry)]
    return [entry for entry in path if entry not in moved] + moved


def default_stop_signals() -> None:
    """SIGTERM, SIGINT and their forwarded copies as a Python program started from a shell has them,
    whatever this process inherited. scripts/run.sh starts spark-submit's JVM with SIGTERM and
    SIGINT ignored (only the Python driver decides how to stop, also when a signal reaches every
    process of its group), and a process inherits ignored signals from its parent, the JVM: a
    driver script that installs no handlers of its own (a recount) must still stop on them."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for forwarded in FORWARDED:
        signal.signal(forwarded, signal.SIG_DFL)


def announce_started(environ=os.environ) -> None:
    """Writes this process's pid to ERRORCOUNT_DRIVER_PID_FILE when set (scripts/run.sh sets it): a
    stop the wrapper gets then finds the driver, and once the driver has exited, the wrapper knows
    that Spark is ending with the driver's exit code rather than still starting. Written whole
    (rename), so the wrapper never reads half a pid; taken out of the environment, so that no
    process the driver starts writes its own."""
    path = environ.pop("ERRORCOUNT_DRIVER_PID_FILE", "")
    if not path:
        return
    partial = f"{path}.{os.getpid()}"
    try:
        with open(partial, "w") as handle:
            handle.write(f"{os.getpid()}\n")
        os.replace(partial, path)
    except OSError as failure:  # the job runs anyway; only a stop's handling is coarser
        print(f"driver_path: cannot write the driver's pid to {path} ({failure}): scripts/run.sh will kill "
              "spark-submit on a stop instead of passing it on (check TMPDIR's space)", file=sys.stderr)


sys.path[:] = installed_first(sys.path)
default_stop_signals()
announce_started()
