"""plan_merges: which ledger rows a retention pass merges (pure; the SQL side is in
tests/integration/test_retention.py)."""

from datetime import datetime

from errorcount.store.retention import LedgerRow, Merge, Plan, plan_merges

CUTOFF = datetime(2026, 3, 10, 15, 30)  # days up to 2026-03-09 are old enough


def row(id_: int, epoch: int, when: str, records: int = 10, batches: int = 1) -> LedgerRow:
    return LedgerRow(id_, epoch, datetime.fromisoformat(when), records, records // 2, 1, batches, f'{{"0": {id_}}}', records * 3)


def test_runs_of_one_epoch_and_day_merge_into_their_last_row_keeping_the_sums():
    rows = [row(1, 1, "2026-03-08 23:59:59"), row(2, 1, "2026-03-09 00:00:00", 4),
            row(5, 1, "2026-03-09 12:00:00", 6, batches=3), row(6, 2, "2026-03-09 13:00:00"),
            row(7, 2, "2026-03-09 23:59:59.999"), row(9, 2, "2026-03-10 00:00:00")]
    assert plan_merges(rows, CUTOFF) == Plan(
        [Merge(2, LedgerRow(5, 1, rows[2].committed_at, 10, 2 + 3, 2, 4, '{"0": 2}', 30)),
         Merge(6, LedgerRow(7, 2, rows[4].committed_at, 20, 10, 2, 2, '{"0": 6}', 60))], 9, True)


def test_a_young_row_ends_the_plan_even_if_older_rows_follow_it():
    # Rows are in id order; a day at or after the cutoff's is never merged, nor anything after it.
    rows = [row(1, 1, "2026-03-10 00:00:01"), row(2, 1, "2026-03-01 00:00:00"), row(3, 1, "2026-03-01 00:00:01")]
    assert plan_merges(rows, CUTOFF) == Plan([], 1, True)


def test_a_read_that_ends_inside_an_old_day_resumes_at_that_days_kept_row():
    rows = [row(3, 1, "2026-03-01 00:00:00"), row(4, 1, "2026-03-02 00:00:00"), row(8, 1, "2026-03-02 10:00:00")]
    assert plan_merges(rows, CUTOFF, from_id=3) == Plan(
        [Merge(4, LedgerRow(8, 1, rows[2].committed_at, 20, 10, 2, 2, '{"0": 4}', 60))], 8, False)


def test_single_rows_and_an_empty_read_plan_nothing():
    assert plan_merges([row(1, 1, "2026-03-01 00:00:00"), row(2, 2, "2026-03-01 00:00:00")], CUTOFF) == Plan([], 2, False)
    assert plan_merges([], CUTOFF, from_id=42) == Plan([], 42, False)
