"""`pip install '.[tools]'` into a fresh virtualenv, from a copy of the package's files only (no
checkout around it), gives console tools that work against the real broker and server."""

import json
import os
import shutil
import subprocess
import sys

from errorcount import __version__
from errorcount.tools import kafka_admin
from tests.harness.admin_db import drop_counts_table
from tests.support import APP_PASSWORD_FILE, ROOT, local_stack, query, unique

PACKAGE_FILES = ("pyproject.toml", "requirements-driver.txt", "requirements-tools.txt", "errorcount")


def test_the_tools_extra_gives_working_console_tools(tmp_path, admin, make_topic):
    source = tmp_path / "src"
    source.mkdir()
    for name in PACKAGE_FILES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, source / name)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    installed = subprocess.run([str(venv / "bin" / "pip"), "install", "--disable-pip-version-check", "-q", f"{source}[tools]"],
                               capture_output=True, text=True, timeout=900)
    assert installed.returncode == 0, installed.stderr[-3000:]

    def tool(*args: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True, text=True, timeout=300,
                              cwd=tmp_path, env={**os.environ, **(env or {})})
        assert done.returncode == 0, f"{args}: {done.stderr[-3000:]}"
        return done.stdout

    assert tool("errorcount", "--version").strip() == f"errorcount {__version__}"
    topic = make_topic(partitions=2)
    printed = tool("errorcount-produce", "--topic", topic, "--lines", "300", "--seed", "5")
    assert f"produced 300 app records to {topic}" in printed
    assert sum(json.loads(tool("errorcount-topic", "end-offsets", topic)).values()) == 300  # the installed admin tool
    assert sum(kafka_admin.end_offsets(topic).values()) == 300  # and the test's own reading
    assert "--since" in tool("errorcount-report", "--help")
    stack = local_stack()
    table = unique("installed").replace("-", "_")
    query(admin, f"CREATE TABLE `{table}` LIKE error_log")
    try:
        query(admin, f"INSERT INTO `{table}` (log_time, log_count) VALUES ('2036-01-01 10:00:00', 7)")
        env = {"MYSQL_PORT": stack["MYSQL_PORT"], "MYSQL_DATABASE": stack["MYSQL_DATABASE"], "MYSQL_USER": stack["MYSQL_USER"],
               "MYSQL_PASSWORD_FILE": str(APP_PASSWORD_FILE), "COUNTS_TABLE": table}
        counts = tool("errorcount-counts", env=env)
        assert "2036-01-01 10:00 " in counts and "total: 7 ERROR lines in 1 minutes" in counts
    finally:
        drop_counts_table(admin, table)
