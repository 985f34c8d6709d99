"""docs/design.md's layout names every module, Java class, script and SQL file of the tree, each
module of a subpackage under that subpackage's entry."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def layout() -> str:
    page = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = page[page.index("## Layout"):]
    return section[:section.index("```", section.index("```") + 3)]


def test_the_layout_names_every_file_of_the_tree():
    text = layout()
    support = [path for name in ("harness", "chaos", "oracles") for path in (ROOT / "tests" / name).glob("*.py")]
    files = [*(ROOT / "errorcount").rglob("*.py"), *(ROOT / "java").rglob("*.java"), *(ROOT / "scripts").glob("*.sh"), *support,
             *(ROOT / "sql").glob("*.sql"), *(ROOT / "conf").glob("*.*"), ROOT / "scripts" / "yarn" / "MiniYarn.java"]
    names = {path.name for path in files if path.name != "__init__.py"}
    assert sorted(name for name in names if name not in text) == []


def test_each_module_of_a_subpackage_is_named_under_its_entry():
    sections: dict[str, str] = {}
    current = None
    for line in layout().splitlines():
        entry = line[2:].split(" ", 1)[0] if line.startswith("  ") and not line.startswith("   ") else ""
        if entry.endswith("/"):
            current = entry[:-1]
        elif entry:
            current = None
        if current:
            sections[current] = sections.get(current, "") + line + "\n"
    package = ROOT / "errorcount"
    for directory in sorted(p for p in package.iterdir() if p.is_dir() and (p / "__init__.py").exists()):
        names = sorted(m.name for m in directory.glob("*.py") if m.name != "__init__.py")
        assert [n for n in names if n not in sections.get(directory.name, "")] == [], directory.name


def test_the_unit_tests_mirror_the_subpackages():
    package, unit = ROOT / "errorcount", ROOT / "tests" / "unit"
    subpackages = {p.name for p in package.iterdir() if (p / "__init__.py").exists()}
    mirrored = {p.name for p in unit.iterdir() if p.is_dir() and any(p.glob("test_*.py"))}
    assert mirrored == subpackages
    for directory in sorted(mirrored):  # a test module is named after a module of its subpackage: test_<module>[_what]
        modules = {m.stem for m in (package / directory).glob("*.py")}
        strays = [t.name for t in (unit / directory).glob("test_*.py")
                  if not any(t.stem[5:] == m or t.stem[5:].startswith(m + "_") for m in modules)]
        assert strays == [], directory
