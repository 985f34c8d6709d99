"""The session's ground: every class conf/ names exists in the Spark that runs the job."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_class_named_in_the_spark_conf_files_loads(spark):
    """A Spark upgrade that moves a class named in conf/ (4.2 moved the checkpoint file manager)
    must fail here, not at the first batch of a deployed job."""
    names = set()
    for path in [*(ROOT / "conf").glob("*.conf"), *(ROOT / "conf").glob("*.properties")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                names.update(re.findall(r"\b(?:org|com)\.[a-z0-9_.]+\.[A-Z][\w$]*", line))
    assert "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager" in names
    assert "org.apache.spark.metrics.sink.PrometheusServlet" in names
    loader = spark.sparkContext._jvm.java.lang.Thread.currentThread().getContextClassLoader()
    for name in sorted(names):
        spark.sparkContext._jvm.java.lang.Class.forName(name, False, loader)  # raises if it is gone
