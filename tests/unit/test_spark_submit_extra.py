"""scripts/lib.sh's spark_submit_extra: SPARK_SUBMIT_EXTRA split as a shell splits words (quotes
and backslashes honoured, nothing expanded or run), for scripts/run.sh and scripts/submit-yarn.sh.
Python's shlex is the second implementation of the same rule."""

import os
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SPLIT = 'source scripts/lib.sh; spark_submit_extra words; for word in "${words[@]}"; do printf "%s\\0" "$word"; done'


def split(text: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "SPARK_SUBMIT_EXTRA": text}
    return subprocess.run(["bash", "-c", SPLIT], cwd=ROOT, env=env, capture_output=True, timeout=30, check=False)


@pytest.mark.parametrize("text", [
    "",
    "   ",
    "--conf spark.ui.port=4050",
    "--conf 'spark.driver.extraJavaOptions=-Xss4m -XX:+UseG1GC' --queue etl",
    '--conf "spark.executor.extraJavaOptions=-Dx=1 -Dy=2"  --driver-java-options -javaagent:/a/b.jar=5',
    "--conf spark.x='a b'c --name it\\ has\\ blanks",
    "--conf 'x=$HOME' --conf \"y=`date`\" --conf z=$(id)",
])
def test_options_are_the_words_a_shell_would_make_and_nothing_is_expanded(text):
    done = split(text)
    assert done.returncode == 0, done.stderr.decode()
    words = done.stdout.decode().split("\0")[:-1]
    assert words == shlex.split(text)


@pytest.mark.parametrize("text", ["--conf 'spark.x=s3cr3t b", '--conf "spark.hadoop.fs.s3a.secret.key=s3cr3t', "--name s3cr3t's"])
def test_an_unmatched_quote_is_a_config_error_that_never_shows_the_text(text):
    done = split(text)
    assert done.returncode == 2
    message = done.stderr.decode()
    assert "config error: SPARK_SUBMIT_EXTRA has an unmatched quote" in message and "then retry" in message
    assert "s3cr3t" not in message  # options may hold a secret
