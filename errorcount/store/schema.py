"""What the job checks of the database before it writes anything: the tables, columns and indexes
sql/schema.sql makes, named as the server resolves them, on InnoDB, with BIGINT counts; and whose
counts table it is (counts_tables). Any problem is a ConfigError (exit 2) saying what to do."""

from collections.abc import Iterable

from errorcount.errors import ConfigError

COUNTS_TABLE = "error_log"  # the default; COUNTS_TABLE names another table of its shape
REQUIRED_COLUMNS = {
    "error_log": {"log_time", "log_count", "line_count"},
    "kafka_offsets": {"job", "topic", "kafka_partition", "next_offset", "topic_id", "seen_end", "counted_from",
                      "updated_at"},
    "job_leases": {"job", "epoch", "owner", "acquired_at", "metrics_endpoint", "first_planned_at", "rules_digest",
                   "rules"},
    "ingest_batches": {"job", "topic", "epoch", "records", "log_records", "error_lines", "rejected", "new_series",
                       "overflow_lines",
                       "batches", "offsets_before", "offsets_after", "committed_at"},
    "rejected_lines": {"job", "topic", "kafka_partition", "kafka_offset", "reason", "raw_value", "seen_at"},
    "skipped_offsets": {"job", "topic", "kafka_partition", "from_offset", "to_offset", "kind", "reason", "epoch",
                        "skipped_at"},
    "counts_tables": {"counts_table", "job", "shared", "claimed_at"},
    "error_series": {"series_id", "job", "dimensions", "series_key", "overflow", "created_at"},
    "error_series_labels": {"series_id", "dimension", "value"},
    "error_series_counts": {"job", "log_time", "series_id", "log_count", "line_count"},
    "counted_through": {"job", "topic", "through_at", "complete_before", "updated_at"},
    "recounts": {"job", "first_minute", "end_minute", "offsets_from", "offsets_to", "errors_before", "lines_before",
                 "errors_after", "lines_after", "rejects_before", "rejects_after",
                 "minutes_changed", "series_rows", "rules_digest", "epoch",
                 "recounted_by", "recounted_at"},
    "rejected_minutes": {"job", "topic", "log_time", "rejected"},
    "changed_minutes": {"job", "log_time", "series_id", "ledger_id", "epoch", "errors_before", "errors_after",
                        "lines_before", "lines_after", "changed_at"},
}
REQUIRED_INDEXES = {"rejected_lines": {"rejected_lines_seen"},  # RETENTION_DAYS deletes by them
                    "changed_minutes": {"changed_minutes_changed"}}
# Types that a too narrow column would turn into failing batches (a minute past 2^31 - 1 ERRORs).
REQUIRED_TYPES = {("error_log", "log_count"): "bigint", ("skipped_offsets", "reason"): "text",
                  ("error_series_counts", "log_count"): "bigint"}
SELECT_CASE_RULE = "SELECT @@lower_case_table_names"
SELECT_TABLES = "SELECT table_name, engine FROM information_schema.tables WHERE table_schema = %s"
SELECT_COLUMNS = "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = %s"
SELECT_INDEXES = "SELECT table_name, index_name FROM information_schema.statistics WHERE table_schema = %s"
SELECT_CLAIMS = "SELECT job, shared FROM counts_tables WHERE counts_table = %s ORDER BY job FOR UPDATE"
UPSERT_CLAIM = ("INSERT INTO counts_tables (counts_table, job, shared) VALUES (%s, %s, %s) "
                "AS new ON DUPLICATE KEY UPDATE shared = new.shared")
FIX = "apply sql/schema.sql as an admin (make schema, with COUNTS_TABLE set for a counts table of its own), then restart"


def problems(case_sensitive: bool, tables: Iterable[tuple[str, str]], columns: Iterable[tuple[str, str, str]],
             indexes: Iterable[tuple[str, str]], counts_table: str) -> list[str]:
    """Pure: what the database lacks for a job writing `counts_table`, from information_schema's
    rows; table names compared as the server resolves them (case_sensitive: lower_case_table_names=0)."""
    def name(table: str) -> str:
        return table if case_sensitive else table.lower()

    required = {**REQUIRED_COLUMNS, name(counts_table): REQUIRED_COLUMNS[COUNTS_TABLE]}
    types = {**REQUIRED_TYPES, (name(counts_table), "log_count"): "bigint"}
    engines = {name(table): (engine or "").lower() for table, engine in tables}
    found: dict[str, dict[str, str]] = {}
    for table, column, data_type in columns:
        found.setdefault(name(table), {})[column.lower()] = data_type.lower()
    found_indexes: dict[str, set[str]] = {}
    for table, index in indexes:
        found_indexes.setdefault(name(table), set()).add(index.lower())
    missing = []
    for table, wanted in required.items():
        if table not in engines:
            missing.append(f"table {table}" + (" (names are case-sensitive on this server)"
                                               if case_sensitive and table.lower() in {t.lower() for t in engines} else ""))
            continue
        missing += [f"{table}.{column}" for column in sorted(wanted - found.get(table, {}).keys())]
        if engines[table] != "innodb":
            missing.append(f"{table} on InnoDB (it is {engines[table] or 'a view'}: a batch's writes would not be atomic)")
    missing += [f"{table}.{column} as {kind} (it is {found[table][column]})" for (table, column), kind in types.items()
                if column in found.get(table, {}) and found[table][column] != kind]
    missing += [f"{table}.{index} (index)" for table, wanted in REQUIRED_INDEXES.items()
                for index in sorted(wanted - found_indexes.get(table, set()))]
    return missing


def verify(cursor, database: str, counts_table: str = COUNTS_TABLE) -> None:
    """Raises ConfigError naming everything the database lacks for this job (run in a transaction)."""
    cursor.execute(SELECT_CASE_RULE)
    case_sensitive = int(cursor.fetchone()[0]) == 0
    rows = []
    for select in (SELECT_TABLES, SELECT_COLUMNS, SELECT_INDEXES):
        cursor.execute(select, (database,))
        rows.append(cursor.fetchall())
    tables, columns, indexes = rows
    missing = problems(case_sensitive, tables, columns, indexes, counts_table)
    if missing:
        raise ConfigError(f"database {database!r} lacks {', '.join(missing)}: {FIX}")


def claim_counts_table(cursor, table: str, job: str, share: bool) -> list[str]:
    """Makes `table` this job's (run in a transaction, before the lease is taken: a refused job
    must not fence the table's owner). Returns the other jobs that share it; ConfigError when
    another job owns it, unless this job and all of them share it (SHARE_COUNTS_TABLE)."""
    cursor.execute(SELECT_CLAIMS, (table,))
    others = [(str(other), bool(shared)) for other, shared in cursor.fetchall() if other != job]
    if others and not (share and all(shared for _other, shared in others)):
        names = ", ".join(repr(other) for other, _shared in others)
        raise ConfigError(
            f"COUNTS_TABLE {table} belongs to job {names}: job {job!r} would add its counts to theirs. Give this job "
            "a table of its own (COUNTS_TABLE=<name>, then make schema); or, if this job replaces that one, rename "
            f"it back to that JOB_NAME (its stored offsets carry on); or, to add both jobs' counts on purpose, set "
            "SHARE_COUNTS_TABLE=true on every job writing the table (docs/operations.md, 'One counts table per job').")
    cursor.execute(UPSERT_CLAIM, (table, job, share))
    return [other for other, _shared in others]
