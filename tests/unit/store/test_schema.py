"""What the job requires of the database, read from information_schema's rows (pure)."""

from errorcount.store.schema import REQUIRED_COLUMNS, REQUIRED_INDEXES, problems

TYPES = {("error_log", "log_count"): "bigint", ("skipped_offsets", "reason"): "text",
         ("error_series_counts", "log_count"): "bigint"}


def database(counts_table="error_log", engine="InnoDB", count_type="bigint", rename=None):
    """information_schema's rows of a database as sql/schema.sql makes it (+ a counts table)."""
    tables = {**REQUIRED_COLUMNS, counts_table: REQUIRED_COLUMNS["error_log"]}
    names = {t: (rename or {}).get(t, t) for t in tables}
    rows_tables = [(names[t], engine if t == counts_table else "InnoDB") for t in tables]
    rows_columns = [(names[t], c, count_type if (t == counts_table and c == "log_count") else TYPES.get((t, c), "int"))
                    for t, cs in tables.items() for c in cs]
    rows_indexes = [(t, i) for t, ix in REQUIRED_INDEXES.items() for i in ix]
    return rows_tables, rows_columns, rows_indexes


def test_a_database_made_by_schema_sql_lacks_nothing():
    assert problems(True, *database(), "error_log") == []
    assert problems(True, *database("access_log"), "access_log") == []


def test_a_counts_table_named_in_another_case_is_missing_where_names_are_case_sensitive():
    assert problems(True, *database(), "Error_Log") == ["table Error_Log (names are case-sensitive on this server)"]
    assert problems(False, *database(), "Error_Log") == []  # lower_case_table_names = 1 or 2


def test_a_counts_table_on_myisam_or_with_an_int_count_is_refused():
    found = problems(True, *database("access_log", engine="MyISAM"), "access_log")
    assert found == ["access_log on InnoDB (it is myisam: a batch's writes would not be atomic)"]
    assert problems(True, *database(count_type="int"), "error_log") == ["error_log.log_count as bigint (it is int)"]


def test_missing_columns_and_indexes_are_named():
    tables, columns, _indexes = database()
    columns = [row for row in columns if row[:2] != ("kafka_offsets", "topic_id")]
    assert problems(True, tables, columns, [], "error_log") == ["kafka_offsets.topic_id",
                                                               "rejected_lines.rejected_lines_seen (index)",
                                                               "changed_minutes.changed_minutes_changed (index)"]
