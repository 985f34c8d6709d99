"""A batch's counts per (minute, series) as Arrow columns, from the fold (fold.py) to the store's
upsert (store/series.py) without a Python object per row. A batch counting every line by a
GROUP_BY of 100 000 series has 200 000 such rows: made into dicts, then into sorted tuples and
JSON by Python, they took ~0.9 s of the driver a batch (docs/performance.md, "Counting by
dimension"); as columns, Arrow's kernels map, sort and encode them.

BatchSummary keeps its dict-shaped fields: `series_counts` and `series_lines` are two views
(CountsView) of one table, read as dicts only by code that asks (a test, the recount's merge)."""

from collections.abc import Iterator, Mapping
from functools import cached_property

import pyarrow as pa

KEYS = ("minute", "series")
SCHEMA = pa.schema([("minute", pa.int64()), ("series", pa.string()), ("errors", pa.int64()), ("lines", pa.int64())])


class CountsView(Mapping[tuple[int, str], int]):
    """One count column of a (minute, series, errors, lines) table as a read-only mapping
    {(minute, series): count}; its dict is built on first read, never for the store."""

    def __init__(self, table: pa.Table, column: str):
        self.table, self.column = table, column

    def __len__(self) -> int:
        return self.table.num_rows

    def __iter__(self) -> Iterator[tuple[int, str]]:
        return iter(self.as_dict)

    def __getitem__(self, key: tuple[int, str]) -> int:
        return self.as_dict[key]

    def __repr__(self) -> str:
        return f"CountsView({self.column}: {self.as_dict!r})"

    @cached_property
    def as_dict(self) -> dict[tuple[int, str], int]:
        keys = zip(self.table["minute"].to_pylist(), self.table["series"].to_pylist(), strict=True)
        return dict(zip(keys, self.table[self.column].to_pylist(), strict=True))


def views(table: pa.Table) -> tuple[CountsView, CountsView]:
    """`table` (SCHEMA's columns, one row per (minute, series)) as (series_counts, series_lines)."""
    return CountsView(table, "errors"), CountsView(table, "lines")


def as_table(series_counts: Mapping[tuple[int, str], int], series_lines: Mapping[tuple[int, str], int]) -> pa.Table:
    """The batch's rows (minute, series, errors, lines), one per key of `series_counts`, a key
    missing from `series_lines` (or all of them: COUNT_LINES off) with 0 lines. The fold's views
    give their table back as it is; dicts (a recount's figures, a test's) are made columns."""
    if isinstance(series_counts, CountsView) and series_counts.column == "errors":
        table = series_counts.table.select(list(SCHEMA.names))
        if isinstance(series_lines, CountsView) and series_lines.table is series_counts.table and series_lines.column == "lines":
            return table
        if not series_lines:
            return table.set_column(3, "lines", pa.nulls(table.num_rows, pa.int64()).fill_null(0))
    keys = list(series_counts)
    minutes, series = (list(column) for column in zip(*keys, strict=True)) if keys else ([], [])
    return pa.table([minutes, series, list(series_counts.values()), [series_lines.get(key, 0) for key in keys]],
                    schema=SCHEMA)
