"""Which MySQL failures are transient and how each reads in the log (PyMySQL's exception types and
the servers' own messages; against real servers: tests/integration/test_store_edges.py)."""

import pymysql
import pytest

from errorcount.store.failures import failure_text, is_transient, read_only


def server_error(code: int, text: str) -> pymysql.err.MySQLError:
    """The exception PyMySQL raises for a server's error `code` (its own mapping)."""
    return pymysql.err.error_map.get(code, pymysql.err.InternalError if code < 1000 else pymysql.err.OperationalError)(
        code, text)


def test_retried_failures_say_what_happened_and_where():
    describe = failure_text("db.example", 3307, probe=lambda host, port: (host, port) == ("db.example", 3307))
    refused = pymysql.err.OperationalError(2003, "Can't connect to MySQL server on 'db.example' ([Errno 111])")
    assert describe(refused) == "MySQL refused the connection or is unreachable at db.example:3307"
    for lost in (pymysql.err.InterfaceError(0, ""), pymysql.err.OperationalError(2013, "Lost connection"),
                 ConnectionResetError(104, "reset")):
        assert describe(lost) == "the connection to MySQL at db.example:3307 was lost"
        assert is_transient(lost)
    hung = "MySQL at db.example:3307 did not answer within the read timeout"  # it accepted, then said nothing
    timed_out = pymysql.err.OperationalError(2013, "Lost connection to MySQL server during query (timed out)")
    assert describe(timed_out).startswith(hung)
    assert describe(TimeoutError("timed out")).startswith(hung)
    deadlock = pymysql.err.OperationalError(1213, "Deadlock found when trying to get lock")
    assert describe(deadlock) == "MySQL rolled the transaction back ((1213, 'Deadlock found when trying to get lock'))"
    assert "(0, '')" not in describe(pymysql.err.InterfaceError(0, ""))
    server_down = failure_text("db.example", 3307, probe=lambda host, port: False)  # PyMySQL's (0, '') when reconnecting fails
    assert server_down(pymysql.err.InterfaceError(0, "")) == "MySQL refused the connection or is unreachable at db.example:3307"


# The servers' own texts for a full disk or no memory (MariaDB 10.11 and MySQL 8.0 error messages).
OUT_OF_SPACE = [
    (1114, "The table 'job_batches' is full"),
    (1021, "Disk full (./errorcount/error_log.ibd); waiting for someone to free some space... "
           "(errno: 28 \"No space left on device\")"),
    (1030, "Got error 28 \"No space left on device\" from storage engine InnoDB"),
    (3, "Error writing file './binlog.000004' (OS errno 28 - No space left on device)"),
    (1041, "Out of memory; check if mysqld or some other process uses all available memory"),
    (1037, "Out of memory; restart server and try again (needed 65536 bytes)"),
]


@pytest.mark.parametrize(("code", "text"), OUT_OF_SPACE)
def test_a_server_out_of_space_or_memory_is_waited_out_and_named(code, text):
    """The statement failed and transaction() rolls back, as after a lost connection: tried again
    until RETRY_SECONDS (exit 5 then), not a failed query restarted to exit 1 within a minute."""
    error = server_error(code, text)
    assert is_transient(error)
    said = failure_text("db.example", 3307, probe=lambda host, port: True)(error)
    assert said.startswith("the SQL server at db.example:3307 is out of disk space or memory") and str(code) in said


@pytest.mark.parametrize(("code", "text"), [
    (1030, "Got error 168 \"Unknown (generic) error from engine\" from storage engine InnoDB"),  # not ENOSPC
    (3, "Error writing file '/tmp/MYfd=52' (OS errno 13 - Permission denied)"),
    (1146, "Table 'errorcount.error_log' doesn't exist"),
    (1406, "Data too long for column 'reason' at row 1"),
    (1290, "The MySQL server is running with the --secure-file-priv option so it cannot execute this statement"),  # not read-only
])
def test_other_server_errors_stay_real_errors(code, text):
    error = server_error(code, text)
    assert not is_transient(error)


# The servers' own texts when they take no writes (MySQL 8.0, MariaDB 10.11).
READ_ONLY = [
    (1290, "The MySQL server is running with the --read-only option so it cannot execute this statement"),
    (1290, "The MySQL server is running with the --super-read-only option so it cannot execute this statement"),
    (1290, "The MariaDB server is running with the --read-only option so it cannot execute this statement"),
    (1836, "Running in read-only mode"),
    (1792, "Cannot execute statement in a READ ONLY transaction."),
]


@pytest.mark.parametrize(("code", "text"), READ_ONLY)
def test_a_server_that_takes_no_writes_is_waited_out_on_a_new_connection_and_named(code, text):
    """A failover demoted the server the job is connected to: tried again (transaction() drops the
    connection, so the next one can reach the new primary) until RETRY_SECONDS, then exit 5."""
    error = server_error(code, text)
    assert is_transient(error) and read_only(error)
    said = failure_text("db.example", 3307, probe=lambda host, port: True)(error)
    assert said.startswith("the SQL server at db.example:3307 takes no writes") and "MYSQL_HOST" in said
