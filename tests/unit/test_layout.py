"""docs/design.md's layout names every module, Java class, script and SQL file of the tree."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def layout() -> str:
    page = (ROOT / "docs" / "design.md").read_text(encoding="utf-8")
    section = page[page.index("## Layout"):]
    return section[:section.index("```", section.index("```") + 3)]


def test_the_layout_names_every_file_of_the_tree():
    text = layout()
    files = [*(ROOT / "errorcount").rglob("*.py"), *(ROOT / "java").rglob("*.java"), *(ROOT / "scripts").glob("*.sh"),
             *(ROOT / "sql").glob("*.sql"), *(ROOT / "conf").glob("*.*"), ROOT / "scripts" / "yarn" / "MiniYarn.java"]
    names = {path.name for path in files if path.name != "__init__.py"}
    assert sorted(name for name in names if name not in text) == []
