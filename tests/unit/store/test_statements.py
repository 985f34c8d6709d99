"""Every INSERT the store sends with executemany goes as one multi-row statement: PyMySQL batches
only an INSERT whose VALUES holds placeholders alone (its RE_INSERT_VALUES); any other runs one
round trip per row, per batch (a batch's offsets at 2 048 partitions: 2 048 of them)."""

import re
from pathlib import Path

import pytest
from pymysql.cursors import RE_INSERT_VALUES

from errorcount.store import changes, marks, mysql, recount, retention, series, statements
from errorcount.tools import ROOT

MODULES = (statements, series, recount, retention, marks, changes)
EXECUTEMANY = re.compile(r"executemany\(\s*(?:with_table\()?([A-Z_]+)")


def sent_with_executemany() -> set[str]:
    """The statement constants errorcount/ passes to executemany, found in its source."""
    return {name for path in Path(ROOT / "errorcount").rglob("*.py")
            for name in EXECUTEMANY.findall(path.read_text(encoding="utf-8"))}


def constant(name: str) -> str:
    return next(vars(module)[name] for module in MODULES if name in vars(module))


@pytest.mark.parametrize("mariadb", [True, False], ids=["mariadb", "mysql"])
def test_every_insert_sent_with_executemany_is_one_multi_row_statement(mariadb):
    names = sent_with_executemany()
    assert {"UPSERT_OFFSETS", "UPSERT_COUNTS", "INSERT_LEDGER", "SETTLE_OFFSETS"} <= names  # the search finds them
    inserts = {name: mysql.for_server(constant(name).replace("{table}", "error_log"), mariadb) for name in names
               if constant(name).lstrip().upper().startswith("INSERT")}
    assert sorted(name for name, sql in inserts.items() if not RE_INSERT_VALUES.match(sql)) == []
