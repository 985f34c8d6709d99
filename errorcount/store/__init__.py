"""The job's MySQL side: its connection (mysql.py), its transactions, one method each, on one
Store per job (transactions.py, the face re-exported here), how its rows read (rows.py), the
per-dimension counts in a batch's transaction (series.py), the startup check of the schema
(schema.py) and retention (retention.py)."""

from errorcount.store.rows import GIVEN_UP, StartState, as_json, as_text
from errorcount.store.transactions import (
    REASON_CHARS,
    UPSERT_COUNTS,
    AlreadyApplied,
    CommitOutcomeUnknown,
    Reattempt,
    Store,
    retry_outside_batch,
    transaction,
    with_table,
)

__all__ = ["GIVEN_UP", "REASON_CHARS", "UPSERT_COUNTS", "AlreadyApplied", "CommitOutcomeUnknown", "Reattempt",
           "StartState", "Store", "as_json", "as_text", "retry_outside_batch", "transaction", "with_table"]
