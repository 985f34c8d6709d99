"""The docs check (part of `make check`): what README.md and docs/*.md name must exist in the code.

- every `make X` in a code span or block is a target of the Makefile;
- every setting-like NAME in a code span or block is a setting (errorcount/config/settings.py), or a name
  the project's code, scripts or config read, or one of the few outside names listed below;
- every relative link and `#anchor` (also those in conf/ and docker-compose.yml) resolves to a file
  and a heading;
- the README's exit-code table lists exactly the codes the job produces (errorcount/errors.py), and
  its restart limit is the one errorcount/supervisor.py enforces.

Each rule is checked by an independent reading of the files (regular expressions over the text),
not by the code that produces them."""

import re
from pathlib import Path

import pytest

from errorcount import errors, retry
from errorcount.config.settings import SETTINGS

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CODE_DIRS = ("errorcount", "scripts", "bench", "tests", "conf", "java")
CODE_FILES = ("Makefile", ".env", "docker-compose.yml", ".ci/run", "pyproject.toml")

# Names the docs may use that neither the settings nor the project's files declare: other programs'
# environment variables (Hadoop, YARN, Spark, the JDK) and the hypothetical setting of the
# "adding a setting" walk-through in docs/configuration.md.
OUTSIDE_NAMES = {
    "HADOOP_CONF_DIR": "Hadoop", "JAVA_HOME": "the JDK", "YARN_JAVA_HOME": "docs/yarn.md's example",
    "APP_SUBMIT_TIME_ENV": "YARN", "NM_HOST": "YARN", "LOG_DIRS": "YARN",
    "PYSPARK_DRIVER_PYTHON": "Spark", "SPARK_CONF_DIR": "Spark", "SPARK_YARN_JARS": "Spark",
    "SPARK_YARN_ARCHIVE": "Spark", "FORCEFUL_SHUTDOWN": "YARN", "SASL_SSL": "Kafka's security protocol",
    "MYSQL_READ_TIMEOUT": "the walk-through's example setting", "JSON_SEVERITY_FIELD": "the walk-through's example",
    "UTC_TIMESTAMP": "SQL", "NO_CODEGEN": "a value of Spark's spark.sql.codegen.factoryMode",
}


def code_text(text: str) -> list[str]:
    """The code spans and fenced blocks of a Markdown text."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    prose = re.sub(r"^```[^\n]*\n.*?^```", "", text, flags=re.S | re.M)
    return blocks + re.findall(r"`([^`\n]+)`", prose)


def doc_code() -> list[tuple[str, str]]:
    return [(doc.name, code) for doc in DOCS for code in code_text(doc.read_text(encoding="utf-8"))]


def makefile_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    return {target for line in re.findall(r"^([a-z][a-zA-Z0-9_ -]*):", text, flags=re.M) for target in line.split()}


def test_every_make_target_in_the_docs_exists():
    targets = makefile_targets()
    named = {(doc, target) for doc, code in doc_code() for target in re.findall(r"\bmake ([a-z][a-z0-9-]*)", code)}
    assert named, "no `make X` found: the reading of the docs is broken"
    assert sorted((doc, target) for doc, target in named if target not in targets) == []


def project_text() -> str:
    files = [path for folder in CODE_DIRS for path in (ROOT / folder).rglob("*")
             if path.is_file() and path.suffix not in {".png", ".jar", ".pyc"} and "__pycache__" not in path.parts]
    files += [ROOT / name for name in CODE_FILES if (ROOT / name).exists()]
    return "\n".join(path.read_text(encoding="utf-8", errors="replace") for path in files
                     if path != Path(__file__).resolve())


def test_every_setting_named_in_the_docs_exists():
    settings = {setting.name for setting in SETTINGS}
    known = project_text()
    unknown = set()
    for doc, code in doc_code():
        for name in re.findall(r"(?<![A-Za-z0-9_.$/-])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b(?!\()", code):
            if name in settings or name in OUTSIDE_NAMES:
                continue
            if not re.search(rf"(?<![A-Za-z0-9_]){name}(?![A-Za-z0-9_])", known):
                unknown.add((doc, name))
    assert sorted(unknown) == []


def test_outside_names_are_not_settings():
    assert set(OUTSIDE_NAMES) & {setting.name for setting in SETTINGS} == set()


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, code marks and punctuation dropped, spaces to '-'."""
    text = re.sub(r"`|\[([^\]]*)\]\([^)]*\)", lambda m: m.group(1) or "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = re.sub(r"^```.*?^```", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    seen: dict[str, int] = {}
    found = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, flags=re.M):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links() -> list[tuple[Path, Path, str]]:
    """(the file linking, the folder its target is relative to, the target as written) of every
    relative link of the docs, and of every docs/ page the compose file and conf/ name."""
    found = []
    for doc in DOCS:
        text = re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M)
        found += [(doc, doc.parent, target) for target in re.findall(r"\]\(([^)\s]+)\)", text)
                  if not re.match(r"[a-z]+:", target)]
    for other in [ROOT / "docker-compose.yml", *(ROOT / "conf").rglob("*.yml"), *(ROOT / "conf").rglob("*.json")]:
        found += [(other, ROOT, target)
                  for target in re.findall(r"\b(docs/[\w.-]+\.md(?:#[\w-]+)?)", other.read_text(encoding="utf-8"))]
    return found


def test_every_relative_link_and_anchor_resolves():
    found = links()
    assert any("#" in target for _, _, target in found), "no anchored link found: the reading is broken"
    broken = []
    for doc, base, target in found:
        path, _, anchor = target.partition("#")
        file = (base / path).resolve() if path else doc
        if not file.exists():
            broken.append((doc.name, target, "no such file"))
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append((doc.name, target, "no such heading"))
    assert broken == []


@pytest.mark.parametrize(("heading", "expected"), [
    ("Counting by dimension", "counting-by-dimension"),
    ("What exactly-once covers, and what it does not", "what-exactly-once-covers-and-what-it-does-not"),
    ("`spark-submit` by hand", "spark-submit-by-hand"),
])
def test_slug_follows_github(heading, expected):
    assert slug(heading) == expected


def readme_exit_table() -> dict[int, str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    return {int(code): rest for code, rest in re.findall(r"^\| (\d+) \|(.*)$", section, flags=re.M)}


def test_the_readme_lists_exactly_the_exit_codes_the_job_produces():
    produced = {value for name, value in vars(errors).items() if name.startswith("EXIT_")}
    stops = {cls.exit_code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.JobStop)}
    assert stops <= produced
    assert set(readme_exit_table()) == produced


def test_the_readme_states_the_restart_limit_the_job_enforces():
    row = readme_exit_table()[errors.EXIT_INTERNAL]
    assert f"{retry.MAX_RESTARTS + 1} times within {retry.RESTART_WINDOW // 60} minutes" in row


def test_the_readme_names_the_command_that_returns_the_jobs_exit_code_and_the_tests_run_it():
    """`make run` turns every failure into make's 2; the README names the command that does not, and
    it is the command every driver of the fault tests runs (tests/faults/test_data_loss.py and
    test_fencing.py assert its codes 4 and 3)."""
    section = (ROOT / "README.md").read_text(encoding="utf-8").split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    named = re.search(r"`([^`]+)`\s+\(what `make run` runs\)", section)
    assert named, "the README's exit codes section no longer names the command that returns the job's code"
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert f"@{named.group(1)} $(ARGS)" in makefile.split("\nrun:", 1)[1].split("\n\n", 1)[0]  # what make run runs
    harness = (ROOT / "tests" / "harness" / "drivers.py").read_text(encoding="utf-8")
    script, argument = named.group(1).split()
    assert f'str(ROOT / "scripts" / "{script.split("/")[1]}"), "{argument}"' in harness
