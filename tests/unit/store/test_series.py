"""MAX_SERIES's admission as a pure function (errorcount/store/series.py): deterministic, bounded; a
batch's series rows in the order they are upserted, against a second implementation."""

import itertools
import json
import random

import pyarrow as pa

from errorcount.config import dimensions
from errorcount.pipeline import series_columns
from errorcount.store.series import Admission, SeriesStore, admit
from errorcount.store.series_rows import ROW_COLUMNS, changed_rows, rows_json, series_rows


def test_new_series_are_admitted_while_there_is_room():
    assert admit({"a": 1, "b": 2}, registered=0, cap=10) == Admission(("b", "a"), frozenset())
    assert admit({}, registered=10, cap=10) == Admission((), frozenset())


def test_beyond_the_cap_the_series_with_fewest_lines_overflow():
    assert admit({"a": 5, "b": 9, "c": 5, "d": 1}, registered=8, cap=10) == Admission(("b", "a"), frozenset({"c", "d"}))
    assert admit({"a": 5}, registered=10, cap=10) == Admission((), frozenset({"a"}))
    assert admit({"a": 5}, registered=12, cap=10) == Admission((), frozenset({"a"}))  # a lowered cap admits nothing


def test_admission_does_not_depend_on_the_order_rows_arrived_in():
    batch = {"x": 3, "y": 3, "z": 3, "w": 7}
    answers = {admit(dict(order), registered=1, cap=3) for order in itertools.permutations(batch.items())}
    assert answers == {Admission(("w", "x"), frozenset({"y", "z"}))}


def test_every_new_series_is_either_admitted_or_overflows_never_both():
    for registered, cap in [(0, 1), (3, 5), (5, 5), (0, 100)]:
        batch = {f"s{i}": i % 4 + 1 for i in range(20)}
        result = admit(batch, registered, cap)
        assert set(result.admitted) | result.overflowed == set(batch)
        assert not set(result.admitted) & result.overflowed
        assert len(result.admitted) == min(max(cap - registered, 0), len(batch))


def rows_by_hand(series_counts, series_lines, target):
    """A second implementation of series_rows: add every row into its (minute, id), then sort the pairs."""
    added = {}
    for (minute, series), count in series_counts.items():
        errors, lines = added.get((minute, target[series]), (0, 0))
        added[minute, target[series]] = (errors + count, lines + series_lines.get((minute, series), 0))
    return [(minute, series_id, *added[minute, series_id]) for minute, series_id in sorted(added)]


def rows_of(counts, lines, target, shared):
    """series_rows over dicts as the store calls it (the batch as columns, each row's id), as tuples."""
    batch = series_columns.as_table(counts, lines)
    ids = pa.array([target[series] for series in batch["series"].to_pylist()], pa.int64())
    rows = series_rows(batch, ids, shared)
    return list(zip(*(rows[name].to_pylist() for name in ROW_COLUMNS), strict=True))


def test_series_rows_are_in_minute_then_id_order_with_negative_minutes_first():
    counts = {(5, "b"): 1, (-3, "a"): 2, (5, "a"): 0, (-1, "b"): 4}
    lines = {(5, "b"): 3, (-3, "a"): 2, (5, "a"): 7}  # (-1, "b") counted no line (COUNT_LINES off)
    assert rows_of(counts, lines, {"a": 9, "b": 2}, shared=False) == [
        (-3, 9, 2, 2), (-1, 2, 4, 0), (5, 2, 1, 3), (5, 9, 0, 7)]


def test_series_rows_add_up_the_series_that_share_the_overflow_id():
    counts = {(7, "x"): 1, (7, "y"): 2, (7, "z"): 0, (8, "y"): 5}
    lines = {(7, "x"): 4, (7, "y"): 2, (7, "z"): 9, (8, "y"): 5}
    assert rows_of(counts, lines, {"x": 3, "y": 1, "z": 1}, shared=True) == [(7, 1, 2, 11), (7, 3, 1, 4), (8, 1, 5, 5)]


def test_series_rows_agree_with_a_second_implementation_on_random_batches():
    rng = random.Random(76)
    for _ in range(200):
        names = [f"s{i}" for i in range(rng.randint(1, 30))]
        shared = rng.random() < 0.5
        target = {name: rng.randint(1, 5) if shared else i + 1 for i, name in enumerate(names)}
        keys = {(rng.randint(-(2 ** 33), 2 ** 33) if rng.random() < 0.1 else rng.randint(0, 200), rng.choice(names))
                for _ in range(rng.randint(0, 300))}
        counts = {key: rng.randint(0, 2 ** 40) for key in keys}
        lines = {key: rng.randint(0, 2 ** 40) for key in keys if rng.random() < 0.9}
        expected = rows_by_hand(counts, lines, target)
        assert rows_of(counts, lines, target, shared) == expected
        # the same rows read from the fold's views of one table (COUNT_LINES on: every key has lines)
        every = {key: lines.get(key, 0) for key in counts}
        table = series_columns.as_table(counts, every)
        viewed, viewed_lines = series_columns.views(table)
        assert series_columns.as_table(viewed, viewed_lines).equals(table) and viewed == counts and viewed_lines == every
        assert series_columns.as_table(viewed, {})["lines"].to_pylist() == [0] * len(counts)  # COUNT_LINES off


def test_the_upserts_json_is_json_dumps_compact_text_of_the_rows():
    rng = random.Random(7)
    for size in (0, 1, 2, 17, 500):
        rows = [(rng.randint(-(2 ** 40), 2 ** 40), rng.randint(1, 2 ** 40), rng.randint(0, 2 ** 62), rng.randint(0, 9))
                for _ in range(size)]
        table = pa.table([list(column) for column in zip(*rows, strict=True)] if rows else [[], [], [], []],
                         schema=pa.schema([(name, pa.int64()) for name in ROW_COLUMNS]))
        assert rows_json(table) == json.dumps(rows, separators=(",", ":"))
        assert json.loads(rows_json(table)) == [list(row) for row in rows]


def test_changed_rows_are_those_of_late_minutes():
    table = pa.table([[1, 1, 2, 3], [5, 6, 5, 5], [1, 0, 2, 3], [4, 4, 4, 4]], names=list(ROW_COLUMNS))
    assert changed_rows(table, frozenset({1, 3, 9})) == {(1, 5): (1, 4), (1, 6): (0, 4), (3, 5): (3, 4)}
    assert changed_rows(table, ()) == {} and changed_rows(table.slice(0, 0), {1}) == {}


def test_a_series_key_is_the_registry_key_whether_kept_or_not_and_the_kept_ones_stay_bounded():
    store = SeriesStore("job", "path,status", max_series=2)
    for batch in ({"a\x1f200", "b\x1f500"}, {"b\x1f500", "c\x1f404"}, {f"v{i}" for i in range(20_000)}, {"a\x1f200"}):
        assert store.keys_of(batch) == {series: dimensions.series_key("path,status", series) for series in batch}
        assert len(store.keys) <= 2 * 2 + 10_000 + len(batch)
