"""The driver's Python per batch of (minute, series) rows: the fold of the tasks' Arrow rows
(pipeline/fold.py) and SeriesStore.write's mapping, sorting and JSON (store/series.py), timed in
one process on a generated batch shaped like the one pass's output (two tasks, every group in
both). The SQL is not sent: the cursor only takes the statements, so what is timed is Python and
Arrow, not the server (the series curve of `make bench` (s) times the whole job).

    python -m bench.driver_fold --minutes 180 --series 90       # the spread access batch of (l)
    python -m bench.driver_fold --minutes 2 --series 100000     # 200 000 rows, as at 10^5 series"""

import argparse
import random
import statistics
import time

import pyarrow as pa

from errorcount.pipeline.fold import fold
from errorcount.pipeline.summary import FIELDS
from errorcount.store.series import Registry, SeriesStore

GROUP_BY = "path,status"
FIRST_MINUTE = 29_000_000
TYPES = {"partition": pa.int32(), "dead_slot": pa.int32(), "reject_reason": pa.string(), "raw_value": pa.binary(),
         "topic": pa.string(), "series": pa.string()}


def batch_table(minutes: int, series: list[str], tasks: int, seed: int) -> pa.Table:
    """The one pass's rows for a batch in which each task saw every (minute, series), plus a
    row per partition (its offsets)."""
    rng = random.Random(seed)
    columns: dict[str, list] = {name: [] for name in FIELDS}
    groups = [(FIRST_MINUTE + m, s) for _ in range(tasks) for m in range(minutes) for s in series]
    partitions = [None] * len(groups) + list(range(4))
    columns["topic"] = ["t"] * len(partitions)
    columns["partition"] = partitions
    columns["minute"] = [m for m, _s in groups] + [None] * 4
    columns["series"] = [s for _m, s in groups] + [None] * 4
    columns["records"] = [10] * len(groups) + [5] * 4
    columns["errors"] = [rng.choice((0, 0, 0, 1)) for _ in groups] + [0] * 4
    columns["rejected"] = [0] * len(partitions)
    columns["newest_ms"] = [1] * len(partitions)
    columns["min_offset"] = [None] * len(groups) + [0] * 4
    columns["max_offset"] = [None] * len(groups) + [100] * 4
    for name in ("dead_slot", "log_records", "reject_reason", "raw_value", "reject_minute"):
        columns[name] = [None] * len(partitions)
    return pa.table({name: pa.array(columns[name], TYPES.get(name, pa.int64())) for name in FIELDS})


class Statements:
    """A cursor that takes the store's statements and sends none (the registry is given)."""

    def execute(self, query: str, params=None) -> None:
        pass

    def executemany(self, query: str, params) -> None:
        pass

    def fetchall(self) -> list:
        return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=int, default=180)
    parser.add_argument("--series", type=int, default=90)
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    series = [f"/api/v{i % 7}/item{i}\x1f{200 + i % 5}" for i in range(args.series)]
    table = batch_table(args.minutes, series, tasks=2, seed=7)
    store = SeriesStore("bench", GROUP_BY, max(args.series, 1000))
    keys = store.keys_of(set(series))
    store.registry = Registry({key: i + 1 for i, key in enumerate(keys.values())}, len(keys), len(keys))
    folds, writes = [], []
    for _ in range(args.rounds):
        started = time.perf_counter()
        summary = fold(table, 10, every_line=True)
        folded = time.perf_counter()
        store.committed(store.write(Statements(), summary.series_counts, summary.series_lines))  # a batch after the first
        folds.append(folded - started)
        writes.append(time.perf_counter() - folded)
    print(f"{table.num_rows} rows from the tasks, {len(summary.series_counts)} series rows: fold "
          f"{statistics.median(folds) * 1000:.1f} ms, write {statistics.median(writes) * 1000:.1f} ms "
          f"(medians of {args.rounds})")


if __name__ == "__main__":
    main()
