"""The harness's own small Java classes (tests/harness/java/), each built into a jar of its own under
.local/test-java with javac against pyspark's jars, when missing or older than its source."""

import subprocess
from pathlib import Path

import pyspark

from errorcount.tools import ROOT

SOURCES = ROOT / "tests" / "harness" / "java"
JARS = ROOT / ".local" / "test-java"


def harness_jar(name: str, manifest: dict[str, str] | None = None) -> Path:
    """tests/harness/java/<name>.java built into .local/test-java/<name>.jar; `manifest`: attributes
    of its manifest (a Java agent's Premain-Class)."""
    source, jar = SOURCES / f"{name}.java", JARS / f"{name}.jar"
    if jar.exists() and jar.stat().st_mtime >= source.stat().st_mtime:
        return jar
    classes = JARS / f"{name}-classes"
    classes.mkdir(parents=True, exist_ok=True)
    spark_jars = Path(pyspark.__file__).parent / "jars"
    subprocess.run(["javac", "--release", "17", "-encoding", "UTF-8", "-cp", f"{spark_jars}/*", "-d", str(classes),
                    str(source)], check=True, capture_output=True, timeout=300)
    attributes = JARS / f"{name}.manifest"
    attributes.write_text("".join(f"{key}: {value}\n" for key, value in (manifest or {}).items()), encoding="utf-8")
    partial = jar.with_suffix(".jar.partial")
    subprocess.run(["jar", "cfm", str(partial), str(attributes), "-C", str(classes), "."], check=True, capture_output=True,
                   timeout=120)
    partial.replace(jar)  # whole or not at all: a test run stopped while building leaves no half jar
    return jar
