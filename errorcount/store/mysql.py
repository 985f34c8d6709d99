"""The job's MySQL connection: its arguments (TLS as MYSQL_SSL_MODE says), its session, the
server's dialect and the one transaction helper every write runs in (transaction()). Which
failures are transient and how they read: failures.py; the job's transactions themselves:
transactions.py."""

import contextlib
import functools
import re
import ssl
from collections.abc import Callable, Iterator

import pymysql
from pymysql.connections import Connection as Raw

from errorcount.config.load import Config
from errorcount.config.settings import MYSQL_REPLY_MARGIN_S
from errorcount.errors import ConfigError
from errorcount.faults import Hooks
from errorcount.store.connection import Connection
from errorcount.store.failures import code_of, is_transient, read_only


def tls_args(cfg: Config) -> dict:
    """PyMySQL's TLS arguments for MYSQL_SSL_MODE, read as the MySQL client reads --ssl-mode."""
    mode = cfg.mysql_ssl_mode
    if mode == "disabled":
        return {"ssl_disabled": True}
    if mode == "preferred":
        return {}  # PyMySQL's own default: TLS when the server offers it, nothing verified
    context = ssl.create_default_context(cafile=cfg.mysql_ssl_ca or None)
    context.check_hostname = mode == "verify_identity"
    context.verify_mode = ssl.CERT_REQUIRED if mode.startswith("verify") else ssl.CERT_NONE
    if cfg.mysql_ssl_cert:
        context.load_cert_chain(cfg.mysql_ssl_cert, cfg.mysql_ssl_key)
    return {"ssl": context}  # a context makes TLS required: no server without it is accepted


def connect_args(cfg: Config) -> dict:
    """PyMySQL connection arguments, TLS as MYSQL_SSL_MODE says. The client waits for a reply longer
    than the session lets a statement wait on locks (innodb_lock_wait_timeout = MYSQL_IDLE_TIMEOUT,
    session_settings): a new instance waiting on a frozen one's locks gets the lock, or the
    server's own lock-wait error, instead of cutting the wait and retrying it as a lost connection
    (which, with MYSQL_IDLE_TIMEOUT past RETRY_SECONDS, ended it as unreachable: exit 5). A statement
    to a server that hangs fails after that silence, once per attempt (connection.py), into the
    job's outage retries."""
    return dict(host=cfg.mysql_host, port=cfg.mysql_port, user=cfg.mysql_user, password=cfg.mysql_password,
                database=cfg.mysql_database, charset="utf8mb4", autocommit=False,
                connect_timeout=cfg.mysql_connect_timeout, read_timeout=int(cfg.mysql_idle_timeout) + MYSQL_REPLY_MARGIN_S,
                write_timeout=60, **tls_args(cfg))


def session_settings(cfg: Config) -> list[str]:
    """Every job connection's session: UTC, strict, and MYSQL_IDLE_TIMEOUT as both the idle limit
    (a frozen driver's connection is dropped and its transaction rolled back) and the lock wait
    (a new instance waiting on a frozen one's row locks tries again that often)."""
    idle = int(cfg.mysql_idle_timeout)
    return ["SET time_zone = '+00:00'", "SET SESSION sql_mode = 'TRADITIONAL'",
            f"SET SESSION wait_timeout = {idle}", f"SET SESSION innodb_lock_wait_timeout = {idle}"]


def opener(cfg: Config, **overrides) -> Callable[[], Raw]:
    """Opens a PyMySQL connection with the job's arguments (`overrides` on top) and session. Raises
    ConfigError for bad credentials or an unknown database, at a start and at every reconnect (a
    password rotated under a running job stops it as a config error, not as an outage); other
    failures propagate (callers retry)."""
    args, session = {**connect_args(cfg), **overrides}, session_settings(cfg)

    def open_raw() -> Raw:
        try:
            raw = pymysql.connect(**args)
        except pymysql.err.OperationalError as error:
            if code_of(error) in (1044, 1045, 1049):  # access denied, bad password, unknown database
                raise ConfigError(f"MySQL refused {cfg.mysql_user}@{cfg.mysql_host}:{cfg.mysql_port}/{cfg.mysql_database}: "
                                  f"{error.args[-1]}; check MYSQL_USER, the password and MYSQL_DATABASE") from None
            raise
        try:
            with raw.cursor() as cursor:
                for statement in session:
                    cursor.execute(statement)
        except BaseException:
            with contextlib.suppress(Exception):
                raw.close()
            raise
        return raw
    return open_raw


def connect(cfg: Config) -> Connection:
    """The job's connection (errorcount/store/connection.py): replaced between transactions when the
    server dropped it, never inside one."""
    return Connection(opener(cfg))


ROW_ALIAS = re.compile(r"\) AS new ON DUPLICATE KEY UPDATE ")
NEW_COLUMN = re.compile(r"\bnew\.(\w+)")


@functools.lru_cache(maxsize=256)
def for_server(statement: str, mariadb: bool) -> str:
    """A statement as the server runs it. Upserts are written with MySQL 8's row alias
    (`VALUES (...) AS new ON DUPLICATE KEY UPDATE c = new.c`): MySQL 8.0.20+ warns on the older
    `VALUES(c)` (1287, deprecated); MariaDB has no alias (MDEV-29919) and takes `VALUES(c)`."""
    if not mariadb or not ROW_ALIAS.search(statement):
        return statement
    head, tail = ROW_ALIAS.split(statement, 1)
    return head + ") ON DUPLICATE KEY UPDATE " + NEW_COLUMN.sub(r"VALUES(\1)", tail)


def is_mariadb(raw: Raw) -> bool:
    """Whether the server is MariaDB, from its version in the connection's handshake (no query)."""
    return "mariadb" in str(raw.get_server_info()).lower()


class ServerCursor:
    """A cursor that runs each statement in the server's form (for_server), chosen from the
    server the connection was made to; everything else is the cursor's own."""

    def __init__(self, cursor, mariadb: bool):
        self.cursor, self.mariadb = cursor, mariadb

    def execute(self, statement: str, args=None):
        return self.cursor.execute(for_server(statement, self.mariadb), args)

    def executemany(self, statement: str, args):
        return self.cursor.executemany(for_server(statement, self.mariadb), args)

    def __getattr__(self, name: str):
        return getattr(self.cursor, name)


IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,63}")


def with_table(statement: str, table: str) -> str:
    """A statement on the counts table `table`: an identifier (COUNTS_TABLE's own rule, checked
    again here because it is put into SQL text), quoted."""
    if not IDENTIFIER.fullmatch(table):
        raise ConfigError(f"COUNTS_TABLE must be an identifier (letters, digits, _), got {table!r}")
    return statement.replace("{table}", table)


class CommitOutcomeUnknown(Exception):
    """The connection broke while COMMIT was in flight: the batch may or may not be stored."""


def retry_outside_batch(error: BaseException) -> bool:
    """Whether a failed transaction other than a batch's is tried again: a transient failure, or a
    COMMIT whose reply was lost (the lease bump, reading offsets and settle are all safe to repeat:
    at worst the epoch moves twice)."""
    return is_transient(error) or isinstance(error, CommitOutcomeUnknown)


class AlreadyApplied(Exception):
    """The stored offsets are already what this transaction would store, under this instance's
    epoch: an earlier attempt whose COMMIT was reported lost was applied after all (late)."""


@contextlib.contextmanager
def transaction(conn: Connection, hooks: Hooks | None = None) -> Iterator[ServerCursor]:
    """BEGIN ... COMMIT; any exception ends the transaction (end_failed) and propagates. A
    connection lost during COMMIT itself raises CommitOutcomeUnknown, because the server may have
    committed. `hooks` (a batch's commit only) are the test fault points around COMMIT."""
    raw = conn.usable()  # first: a connection the server dropped is replaced here, outside a transaction
    cursor = ServerCursor(raw.cursor(), is_mariadb(raw))
    try:
        raw.begin()
        yield cursor
        if hooks:
            hooks.crash("before_commit")
            if hooks.lose_commit("commit_lost_unapplied"):
                raise CommitOutcomeUnknown("test fault: connection lost before COMMIT reached the server")
        try:
            raw.commit()
        except Exception as error:
            if is_transient(error):
                raise CommitOutcomeUnknown(f"connection lost during COMMIT: {error}") from error
            raise
        if hooks and hooks.lose_commit("commit_lost_applied"):
            raise CommitOutcomeUnknown("test fault: COMMIT applied but its reply was lost")
    except BaseException as error:
        end_failed(conn, raw, error)
        raise
    finally:
        with contextlib.suppress(Exception):
            cursor.cursor.close()


def end_failed(conn: Connection, raw: Raw, error: BaseException) -> None:
    """After `error` inside a transaction: a connection still open (the server answered with an
    error, or the job's own code raised between statements) is rolled back; one that PyMySQL closed
    (a reply lost or not given within the read timeout) is dropped without another round trip, and
    the server rolls its transaction back when it notices (a hung one: when it goes on). A failed
    rollback drops the connection too, and so does a server that takes no writes (read_only: the
    next connection may reach the new primary). The next transaction opens one (Connection.usable)."""
    if raw.open and not read_only(error):
        try:
            raw.rollback()
            return
        except Exception:  # noqa: BLE001  # whatever it was, the connection is not to be trusted
            pass
    conn.discard()
