"""Builds the YARN bundle (`make package`) into one directory:

  errorcount-app.zip     the errorcount/ package without tools/, for --py-files; byte-for-byte reproducible (sorted
                         entries, fixed timestamps, sources only)
  main.py                the driver script spark-submit starts (errorcount/main.py)
  recount.py             the recount's driver script (errorcount/recount/main.py; submit-yarn.sh recount)
  errorcount-env.tar.gz  a venv-pack archive of requirements-driver.txt, for --archives ...#environment
  jars/                  the Spark Kafka connector jars matching pyspark, for --jars
  conf/                  the conf/ files submit-yarn.sh reads (errorcount.conf is a template;
                         log4j2.properties is the submitting client's own logging)
  MANIFEST.txt           versions and the sha256 of every file above

Usage: python -m errorcount.tools.package OUTDIR JAR[,JAR...]
"""

import hashlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pyspark

from errorcount.tools import ROOT

ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # the earliest a zip can hold: no build clock in the bundle
CONF_FILES = ("errorcount.conf", "spark-defaults.conf", "spark-yarn.conf", "log4j2.properties", "log4j2-yarn.properties")


def app_zip(target: Path, root: Path = ROOT) -> None:
    """The driver's package: errorcount/ without tools/ (confluent-kafka; not the job) and without
    compiled files, in a fixed order with fixed times."""
    package = root / "errorcount"
    sources = sorted(path for path in package.rglob("*.py")
                     if "__pycache__" not in path.parts and path.relative_to(package).parts[0] != "tools")
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as bundle:
        for path in sources:
            info = zipfile.ZipInfo(path.relative_to(root).as_posix(), ZIP_TIME)
            info.compress_type, info.external_attr = zipfile.ZIP_DEFLATED, 0o644 << 16
            bundle.writestr(info, path.read_bytes())


def env_archive(work: Path, target: Path) -> None:
    """A fresh virtualenv holding only the driver's pinned dependencies, packed by venv-pack. It
    links the interpreter: the nodes need this Python version at the same path (docs/yarn.md)."""
    venv = work / "driver-venv"
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-compile", "--prefix", str(venv),
                    "--ignore-installed", "-r", str(ROOT / "requirements-driver.txt")], check=True)
    target.unlink(missing_ok=True)
    subprocess.run([str(Path(sys.executable).parent / "venv-pack"), "-q", "-p", str(venv), "-o", str(target)],
                   check=True)


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def git_revision() -> str:
    result = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"], capture_output=True, text=True)
    return result.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        sys.exit(__doc__)
    build(Path(argv[0]).resolve(), [jar for jar in argv[1].split(",") if jar])
    return 0


def build(out: Path, jars: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for stale in ("jars", "conf"):
        shutil.rmtree(out / stale, ignore_errors=True)
    (out / "jars").mkdir()
    (out / "conf").mkdir()
    app_zip(out / "errorcount-app.zip")
    shutil.copyfile(ROOT / "errorcount" / "main.py", out / "main.py")
    shutil.copyfile(ROOT / "errorcount" / "recount" / "main.py", out / "recount.py")
    env_archive(out.parent, out / "errorcount-env.tar.gz")
    for jar in jars:
        shutil.copyfile(jar, out / "jars" / os.path.basename(jar))
    for name in CONF_FILES:
        shutil.copyfile(ROOT / "conf" / name, out / "conf" / name)
    files = sorted(p for p in out.rglob("*") if p.is_file() and p.name != "MANIFEST.txt")
    lines = [f"revision {git_revision()}", f"pyspark {pyspark.__version__}",
             f"python {sys.version_info.major}.{sys.version_info.minor} (the nodes need the same)"]
    lines += [f"{sha256(p)}  {p.relative_to(out).as_posix()}" for p in files]
    (out / "MANIFEST.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(out)


if __name__ == "__main__":
    sys.exit(main())
