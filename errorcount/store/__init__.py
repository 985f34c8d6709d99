"""The job's MySQL side: its connection (connection.py, its arguments in mysql.py), the one transaction
helper (mysql.py), which failures are transient (failures.py), its transactions, one method each, on
one Store per job (transactions.py, the face re-exported here, on lease.py's LeaseStore: the lease,
the start and the fencing; their SQL in statements.py), how its rows read (rows.py), the
per-dimension counts in a batch's transaction (series.py), the startup check of the schema
(schema.py), retention (retention.py) and the server's clock, counted_through's second (clock.py)."""

from errorcount.store.mysql import AlreadyApplied, CommitOutcomeUnknown, retry_outside_batch, transaction, with_table
from errorcount.store.rows import GIVEN_UP, StartState, as_json, as_text
from errorcount.store.statements import REASON_CHARS, UPSERT_COUNTS
from errorcount.store.transactions import Reattempt, Store

__all__ = ["GIVEN_UP", "REASON_CHARS", "UPSERT_COUNTS", "AlreadyApplied", "CommitOutcomeUnknown", "Reattempt",
           "StartState", "Store", "as_json", "as_text", "retry_outside_batch", "transaction", "with_table"]
