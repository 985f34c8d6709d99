"""The job's MySQL connection as pure values: TLS as MYSQL_SSL_MODE says, the session every
connection gets, what is tried again outside a batch (failures: test_failures.py)."""

import ssl
import subprocess

import pymysql

from errorcount.config.load import load_config
from errorcount.store.mysql import CommitOutcomeUnknown, connect_args, retry_outside_batch, session_settings


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
