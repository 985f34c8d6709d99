"""The job's MySQL connection as pure values: how a failure it retries reads (PyMySQL's exception
types only), TLS as MYSQL_SSL_MODE says, the session every connection gets."""

import ssl
import subprocess

import pymysql
import pytest

from errorcount.config.load import load_config
from errorcount.store.mysql import (
    CommitOutcomeUnknown,
    connect_args,
    failure_text,
    is_transient,
    retry_outside_batch,
    session_settings,
)


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


def test_a_lost_commit_outside_a_batch_is_tried_again_but_not_a_real_error():
    assert retry_outside_batch(CommitOutcomeUnknown("connection lost during COMMIT"))
    assert retry_outside_batch(pymysql.err.OperationalError(2013, "Lost connection"))
    assert not retry_outside_batch(pymysql.err.ProgrammingError(1146, "Table doesn't exist"))


def test_mysql_ssl_mode_reaches_the_connection_as_the_mysql_client_reads_it(tmp_path):
    ca = tmp_path / "ca.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=errorcount-test-ca", "-keyout", str(tmp_path / "ca.key"), "-out", str(ca)],
                   check=True, capture_output=True)
    preferred = connect_args(load_config([], {}))
    assert not any(key.startswith("ssl") for key in preferred)  # PyMySQL's default: TLS if offered, unverified
    assert connect_args(load_config([], {"MYSQL_SSL_MODE": "disabled"}))["ssl_disabled"] is True
    required = connect_args(load_config([], {"MYSQL_SSL_MODE": "required"}))["ssl"]
    assert (required.verify_mode, required.check_hostname) == (ssl.CERT_NONE, False)
    verify_ca = connect_args(load_config([], {"MYSQL_SSL_MODE": "verify_ca", "MYSQL_SSL_CA": str(ca)}))["ssl"]
    assert (verify_ca.verify_mode, verify_ca.check_hostname) == (ssl.CERT_REQUIRED, False)
    identity = connect_args(load_config([], {"MYSQL_SSL_MODE": "verify_identity", "MYSQL_SSL_CA": str(ca)}))["ssl"]
    assert (identity.verify_mode, identity.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert identity.get_ca_certs()[0]["subject"] == ((("commonName", "errorcount-test-ca"),),)


def test_every_job_session_bounds_how_long_a_frozen_driver_holds_its_locks():
    statements = session_settings(load_config([], {"MYSQL_IDLE_TIMEOUT": "45"}))
    assert "SET SESSION wait_timeout = 45" in statements and "SET SESSION innodb_lock_wait_timeout = 45" in statements
    assert "SET time_zone = '+00:00'" in statements


def test_the_client_waits_for_a_reply_longer_than_the_session_waits_on_locks():
    """Over MYSQL_IDLE_TIMEOUT's whole range: a statement queued behind a frozen instance's locks
    is answered by the server (the lock, or its lock-wait error) before the client stops listening.
    The lock wait is read from the session's own statements, not from how the timeout is derived."""
    for idle in ("5", "59", "60", "61", "300", "3600"):
        cfg = load_config([], {"MYSQL_IDLE_TIMEOUT": idle})
        lock_wait = [int(s.rsplit("=", 1)[1]) for s in session_settings(cfg) if "innodb_lock_wait_timeout" in s]
        assert lock_wait == [int(idle)]
        assert connect_args(cfg)["read_timeout"] >= lock_wait[0] + 10, idle  # the statement's own work on top


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
    error = (pymysql.err.InternalError if code < 1000 else pymysql.err.OperationalError)(code, text)
    assert is_transient(error) and retry_outside_batch(error)
    said = failure_text("db.example", 3307, probe=lambda host, port: True)(error)
    assert said.startswith("the SQL server at db.example:3307 is out of disk space or memory") and str(code) in said


@pytest.mark.parametrize(("code", "text"), [
    (1030, "Got error 168 \"Unknown (generic) error from engine\" from storage engine InnoDB"),  # not ENOSPC
    (3, "Error writing file '/tmp/MYfd=52' (OS errno 13 - Permission denied)"),
    (1146, "Table 'errorcount.error_log' doesn't exist"),
    (1406, "Data too long for column 'reason' at row 1"),
])
def test_other_server_errors_stay_real_errors(code, text):
    error = (pymysql.err.InternalError if code < 1000 else pymysql.err.OperationalError)(code, text)
    assert not is_transient(error)
