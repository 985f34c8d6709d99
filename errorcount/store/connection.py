"""The job's connection to MySQL: one PyMySQL connection, replaced between transactions when it
is gone, never inside one (errorcount/store/mysql.py transaction() uses it).

A connection the server dropped while it sat idle (MYSQL_IDLE_TIMEOUT, a KILL, a restart) is told
without a round trip: with no reply awaited, a socket that reads as ready holds only the server's
goodbye (an error packet, or the end of the stream). So a SQL server that hangs costs one read
timeout per attempt, in the transaction's first statement or in the handshake of the connection
that replaces a broken one, and the error says it did not answer. DBUtils' steady connection,
which the job used before, pinged first and reconnected on its own inside a failed attempt, each
step waiting as long (three waits, 105 s for a 35 s read timeout, measured on MariaDB 10.11), and
its error then read as a lost connection."""

import contextlib
import select
import socket
from collections.abc import Callable

from pymysql.connections import Connection as Raw


def dropped(sock: socket.socket | None) -> bool:
    """Whether a connection's socket, between requests, is closed here or by the server (it reads as
    ready although no reply is awaited). A server that hangs reads as not dropped: its answer is
    waited for by the statement that needs it, once."""
    if sock is None or sock.fileno() < 0:
        return True
    poller = select.poll()  # not select(): a long-lived driver's descriptors may pass FD_SETSIZE (1024)
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))  # readable, or hung up / in error (always reported)


class Connection:
    """`make()` opens a PyMySQL connection with the job's session (and raises what opening raised);
    one is opened at once. `usable()` is the connection for the next transaction; `discard()` drops
    a broken one, whose open transaction the server rolls back when it notices the socket closed;
    `made` counts the connections opened (how a test sees a reconnect)."""

    def __init__(self, make: Callable[[], Raw]):
        self.make = make
        self.raw: Raw | None = make()
        self.made = 1

    def usable(self) -> Raw:
        """The open connection, or a new one in place of one that is gone (opening it may fail: the
        caller's attempt fails with that error and is retried as a whole)."""
        if self.raw is None or dropped(getattr(self.raw, "_sock", None)):  # PyMySQL's socket, None once closed
            self.discard()
            self.raw = self.make()
            self.made += 1
        return self.raw

    def discard(self) -> None:
        raw, self.raw = self.raw, None
        if raw is not None and raw.open:
            with contextlib.suppress(Exception):  # a goodbye to a server that is gone may fail; it is closed either way
                raw.close()

    def close(self) -> None:
        self.discard()
