"""Per-dimension counts (GROUP_BY) inside the batch's transaction: the series registry, the
cardinality cap (MAX_SERIES) and the per-minute counts of each series (sql/schema.sql:
error_series, error_series_labels, error_series_counts).

A series new to the job is admitted while the job has fewer than MAX_SERIES; beyond that its
lines are counted into the overflow series of its GROUP_BY. Admission happens in the batch's own
transaction, after the lease row is locked (one writer per job), so a rolled-back batch admits
nothing and a retried batch admits the same series again (admit is pure and deterministic)."""

import logging
from collections import ChainMap
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc

from errorcount.config import dimensions
from errorcount.pipeline import series_columns
from errorcount.store.series_rows import changed_rows, series_rows, upsert

log = logging.getLogger(__name__)

SELECT_SERIES = "SELECT series_key, series_id, overflow FROM error_series WHERE job = %s"
INSERT_SERIES = "INSERT INTO error_series (job, dimensions, series_key, overflow) VALUES (%s, %s, %s, %s)"
SELECT_NEW = "SELECT series_key, series_id FROM error_series WHERE job = %s AND series_id > %s"
SELECT_SINCE = "SELECT series_key, series_id, overflow FROM error_series WHERE job = %s AND series_id > %s"
INSERT_LABELS = "INSERT INTO error_series_labels (series_id, dimension, value) VALUES (%s, %s, %s)"
@dataclass(frozen=True)
class Admission:
    """Which of a batch's series new to the job are registered (`admitted`, in order), and which
    are counted into the overflow series (`overflowed`)."""

    admitted: tuple[str, ...]
    overflowed: frozenset[str]


def admit(new: Mapping[str, Any], registered: int, cap: int) -> Admission:
    """Pure: of the batch's new series ({series: its weight in the batch: ERROR lines, or (ERROR
    lines, lines)}), as many as fit under `cap` with `registered` already there, the heaviest
    first (then by value), so the same batch against the same registry always admits the same series."""
    ordered = sorted(sorted(new), key=new.__getitem__, reverse=True)  # stable: equal weights by value
    room = max(cap - registered, 0)
    return Admission(tuple(ordered[:room]), frozenset(ordered[room:]))


@dataclass(frozen=True)
class Registry:
    """The job's registered series as this driver knows them: {series_key: series_id}, and how
    many count against MAX_SERIES (overflow series do not)."""

    ids: dict[bytes, int]  # grown in place by committed batches (SeriesStore.committed), never copied per batch
    registered: int
    top: int = 0  # the highest series id in `ids` (0: none): read per batch without a pass over every series


@dataclass(frozen=True)
class Written:
    registry: Registry   # the registry once this transaction commits, but for `fresh` (added by committed())
    new_series: int      # series this batch registered
    overflow_lines: int  # ERROR lines this batch counted into an overflow series
    # (minute, series id): (ERROR lines, lines) this batch added to minutes of `late` (complete ones)
    changed: dict[tuple[int, int], tuple[int, int]] = field(default_factory=dict)
    named: dict[str, int] = field(default_factory=dict)  # the batch's series new to SeriesStore.named, with their ids
    fresh: dict[bytes, int] = field(default_factory=dict)  # the series this transaction registered: {key: id}


class SeriesStore:
    """The per-dimension counts of one job: GROUP_BY (canonical) and MAX_SERIES. Keeps the registry
    between batches (this instance is the job's one writer while its lease holds); a transaction
    that did not commit drops it, and the next batch reads it again."""

    def __init__(self, job: str, group_by: str, max_series: int,
                 on_commit: Callable[[int, int, int], None] = lambda registered, limit, overflow_lines: None):
        self.job, self.group_by, self.max_series = job, group_by, max_series
        self.registry: Registry | None = None
        self.keys: dict[str, bytes] = {}  # keys_of: a series' registry key, a pure function of GROUP_BY and the series
        # A registered series' id by its value, from committed batches only (an id never changes:
        # series are never deleted), so a batch of series met before looks each up once.
        self.named: dict[str, int] = {}
        self.overflow_logged = False
        self.on_commit = on_commit  # after a commit: (series registered, MAX_SERIES, overflow lines), for the metrics

    def load(self, cursor) -> Registry:
        cursor.execute(SELECT_SERIES, (self.job,))
        rows = cursor.fetchall()
        ids = {bytes(key): int(series_id) for key, series_id, _overflow in rows}
        return Registry(ids, sum(not overflow for _key, _id, overflow in rows), max(ids.values(), default=0))

    def current(self, cursor) -> Registry:
        """The registry as the transaction sees it: the one kept between batches, with any series
        another writer registered since (a recount swapping in a range, errorcount/store/recount.py,
        under the same lease lock), or read whole."""
        if self.registry is None:
            return self.load(cursor)
        cursor.execute(SELECT_SINCE, (self.job, self.registry.top))
        rows = cursor.fetchall()
        if not rows:
            return self.registry
        since = {bytes(key): int(series_id) for key, series_id, _overflow in rows}
        registered = self.registry.registered + sum(not overflow for _key, _id, overflow in rows)
        # Into the kept ids, not a copy of every series the job has: these rows are committed (by
        # the recount), so they hold whether this transaction commits or not.
        self.registry.ids.update(since)
        return Registry(self.registry.ids, registered, max(self.registry.top, *since.values()))

    def write(self, cursor, series_counts: Mapping[tuple[int, str], int],
              series_lines: Mapping[tuple[int, str], int] | None = None, late: Collection[int] = ()) -> Written:
        """In the batch's transaction: admits new series (most ERROR lines first, then most lines),
        registers them with their labels, and adds the batch's counts (ERROR lines, and lines with
        COUNT_LINES) to error_series_counts, in (minute, series_id) order. The overflow series
        counts both of every series not admitted. Written.changed: what it added to minutes in
        `late` (already complete: changes.py)."""
        registry = self.current(cursor)
        # Python per series, Arrow per row: a batch of a spread backlog counting every line has
        # 16 200 (minute, series) rows, and one of 100 000 series a row per series and minute
        # (docs/performance.md, "Counting by dimension").
        batch = series_columns.as_table(series_counts, series_lines or {})
        encoded = batch["series"].combine_chunks().dictionary_encode()
        names: list[str] = encoded.dictionary.to_pylist()  # the batch's series, each once
        target: list[int | None] = [self.named.get(series) for series in names]
        missing = [at for at, series_id in enumerate(target) if series_id is None]
        key = self.keys_of({names[at] for at in missing})
        new = {series for series, k in key.items() if k not in registry.ids}
        weights = self.totals(batch, encoded, names, new) if new else {}
        admission = admit(weights, registry.registered, self.max_series)
        overflow_key = dimensions.series_key(self.group_by, None)
        new_overflow = bool(admission.overflowed) and overflow_key not in registry.ids
        fresh = self.register_all(cursor, registry, {s: key[s] for s in admission.admitted}, new_overflow)
        ids = ChainMap(fresh, registry.ids) if fresh else registry.ids  # fresh joins the kept ids on commit only
        for at in missing:
            target[at] = ids[overflow_key if names[at] in admission.overflowed else key[names[at]]]
        rows = series_rows(batch, pc.take(pa.array(target, pa.int64()), encoded.indices), shared=bool(admission.overflowed))
        upsert(cursor, self.job, rows)
        overflow_lines = sum(weights[s][0] for s in admission.overflowed)
        after = Registry(registry.ids, registry.registered + len(admission.admitted), max(registry.top, *fresh.values(), 0))
        return Written(after, len(admission.admitted), overflow_lines, changed_rows(rows, late),
                       {names[at]: ids[key[names[at]]] for at in missing if names[at] not in admission.overflowed}, fresh)

    @staticmethod
    def totals(batch: pa.Table, encoded: pa.DictionaryArray, names: list[str], new: set[str]) -> dict[str, tuple[int, int]]:
        """{series: (ERROR lines, lines)} of the batch, for its series in `new` (their weight in admit)."""
        summed = pa.table({"i": encoded.indices, "errors": batch["errors"], "lines": batch["lines"]}).group_by(
            "i", use_threads=False).aggregate([("errors", "sum"), ("lines", "sum")])
        found = zip(summed["i"].to_pylist(), summed["errors_sum"].to_pylist(), summed["lines_sum"].to_pylist(), strict=True)
        return {names[i]: (errors, lines) for i, errors, lines in found if names[i] in new}

    def cache_limit(self) -> int:
        """How many series `keys` and `named` each keep before they are dropped: room for every
        series under MAX_SERIES, values past it, and one batch's."""
        return 2 * self.max_series + 10_000

    def keys_of(self, batch_series: set[str]) -> dict[str, bytes]:
        """{series: its registry key} for a batch's series. The keys (SHA-256, ~1.5 us each) are kept
        between batches: a job of 100 000 series meets most of them again every batch. Once more than
        2 x MAX_SERIES + 10 000 are kept they are dropped before the batch's are added, so values
        past the cap (the overflow's) cannot grow it beyond that and one batch's series."""
        known = self.keys
        if len(known) > self.cache_limit():
            known.clear()
        for series in batch_series - known.keys():
            known[series] = dimensions.series_key(self.group_by, series)
        return {series: known[series] for series in batch_series}

    def register_all(self, cursor, registry: Registry, admitted: Mapping[str, bytes], overflow: bool) -> dict[bytes, int]:
        """Registers the admitted series ({series: key}, in admission order) with their labels, and
        the overflow series of GROUP_BY when `overflow` (its labels NULL); returns their ids."""
        fresh = [(key, False) for key in admitted.values()] + ([(dimensions.series_key(self.group_by, None), True)]
                                                                if overflow else [])
        if not fresh:
            return {}
        ids = self.register(cursor, fresh, registry.top)
        labels: list[tuple[int, str, str | None]] = [(ids[key], name, value) for series, key in admitted.items()
                                                     for name, value in dimensions.labels(self.group_by, series)]
        if overflow:
            labels += [(ids[fresh[-1][0]], name, None) for name in dimensions.names(self.group_by)]
        cursor.executemany(INSERT_LABELS, sorted(labels, key=lambda row: row[:2]))
        return ids

    def register(self, cursor, fresh: list[tuple[bytes, bool]], above: int) -> dict[bytes, int]:
        """Inserts the registry rows of `fresh` (key, overflow) and reads back their ids (AUTO_INCREMENT:
        above any id this job had)."""
        cursor.executemany(INSERT_SERIES, [(self.job, self.group_by, key, overflow) for key, overflow in sorted(fresh)])
        cursor.execute(SELECT_NEW, (self.job, above))
        return {bytes(key): int(series_id) for key, series_id in cursor.fetchall()}

    def committed(self, written: Written) -> None:
        """After the transaction committed: keep its registry; log the first overflow, with what to do."""
        written.registry.ids.update(written.fresh)  # the kept ids grow by the batch's new series, not copied
        self.registry = written.registry
        if len(self.named) > self.cache_limit():  # a lowered MAX_SERIES: stay bounded, as keys_of
            self.named.clear()
        self.named.update(written.named)
        self.on_commit(written.registry.registered, self.max_series, written.overflow_lines)
        if written.overflow_lines and not self.overflow_logged:
            self.overflow_logged = True
            log.warning("job %r has MAX_SERIES=%d series: %d ERROR lines of further series were counted into the overflow "
                        "series of GROUP_BY=%s (its labels are NULL). Raise MAX_SERIES, or drop the dimension with the most "
                        "values from GROUP_BY (docs/operations.md, 'Counting by dimension')",
                        self.job, self.max_series, written.overflow_lines, self.group_by)

    def forget(self) -> None:
        """The transaction did not commit (or its outcome is unknown): read the registry again next time."""
        self.registry = None
        self.named.clear()
