"""The SQL server's clock, counted_through's second clock (docs/design.md, "Why counted_through
never runs ahead"). An observation's time is the earlier of the driver's clock and the SQL
server's, both read before Kafka is asked: a driver whose clock runs ahead (a VM resumed with a
stale offset, a wrong NTP source) then cannot carry the mark, which is never lowered, past what is
counted. One clock behind the other only holds the mark back, and says so in the log."""

import contextlib
import logging
from collections.abc import Callable
from typing import Any

from errorcount.retry import first_line
from errorcount.store import mysql

log = logging.getLogger(__name__)

SERVER_TIME = "SELECT UNIX_TIMESTAMP(NOW(3))"  # epoch seconds whatever the session's zone
SKEW_WARN_S = 10.0  # clocks kept by NTP agree within milliseconds; this much apart is a wrong clock
# (conf/prometheus/alerts.yml's ErrorcountClocksDisagree fires at the same difference)


class ServerClockUnavailable(Exception):
    """The SQL server's clock could not be read: the observation is skipped, the marks hold still."""


class ServerClock:
    """The SQL server's time, on a connection of its own (the observing thread's: the job's
    connection belongs to the batches), opened on first use and again after a failure."""

    def __init__(self, connect: Callable[[], Any], describe: Callable[[BaseException], str] = first_line):
        self.connect, self.describe = connect, describe  # describe: how a failure reads in the log
        self.conn: Any = None

    def now(self) -> float:
        try:
            if self.conn is None:
                self.conn = self.connect()
            with mysql.transaction(self.conn) as cursor:  # no snapshot left open on the server
                cursor.execute(SERVER_TIME)
                (at,) = cursor.fetchone()
            return float(at)
        except Exception as error:  # noqa: BLE001  # any failure: the marks wait for the next look
            self.close()
            raise ServerClockUnavailable(f"cannot read the SQL server's clock: {self.describe(error)}") from error

    def close(self) -> None:
        conn, self.conn = self.conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # closing a broken connection may fail too; it is dropped either way
                conn.close()


def apart(before: float, server: float, after: float) -> float:
    """The driver's clock minus the SQL server's, as far as one reading tells: the server answered
    at a moment between the driver's readings `before` and `after`, so the difference lies between
    before - server and after - server; this is the bound nearer zero, 0 when they straddle it. A
    slow answer (a server that hung, then went on) widens the interval instead of reading as a skew."""
    if before > server:
        return before - server
    if after < server:
        return after - server
    return 0.0


def skew_text(skew_s: float) -> str:
    """How far the driver's clock is from the SQL server's, in words."""
    return f"{abs(skew_s):.1f} s {'ahead of' if skew_s > 0 else 'behind'}"


class EarlierClock:
    """A clock (epoch seconds) reading the driver's clock, then the SQL server's, and giving the
    earlier; the driver's is read once more after the server answered, to bound the difference
    (apart). Hands each difference to `compared` (the metrics); logs when they first differ by more
    than `warn_s`, and when they agree again."""

    def __init__(self, driver: Callable[[], float], server: Callable[[], float],
                 compared: Callable[[float], None] = lambda skew_s: None, warn_s: float = SKEW_WARN_S):
        self.driver, self.server, self.compared, self.warn_s = driver, server, compared, warn_s
        self.skewed = False

    def __call__(self) -> float:
        driver = self.driver()
        server = self.server()
        skew = apart(driver, server, self.driver())
        self.compared(skew)
        skewed = abs(skew) > self.warn_s
        if skewed and not self.skewed:
            log.warning("the driver's clock is %s the SQL server's: counted_through follows the earlier of the two, so "
                        "while that one is the wrong clock, minutes become complete up to %.0f s late. Set the wrong "
                        "clock right (NTP) on the driver's host or the SQL server's (docs/operations.md, 'Complete minutes')",
                        skew_text(skew), abs(skew))
        elif self.skewed and not skewed:
            log.info("the driver's clock and the SQL server's agree again (%s)", skew_text(skew))
        self.skewed = skewed
        return min(driver, server)
