"""Which failures of the SQL server or of the connection to it are transient (the transaction was
rolled back, or never began, and may be tried again) and how each reads in the log: what
happened, where, what to do."""

import re
import socket
from collections.abc import Callable

import pymysql

from errorcount.retry import first_line

# The server out of disk space or memory: the statement failed and the transaction is rolled back
# (transaction()), as after a lost connection; it may succeed once an operator frees space.
# 1021 disk full, 1114 table full (its tablespace cannot grow), 1037/1038/1041 out of memory,
# 1135 no thread; 3 (error writing a file) and 1030 (the storage engine's errno) only for ENOSPC.
OUT_OF_RESOURCES = (1021, 1037, 1038, 1041, 1114, 1135)
NO_SPACE = (3, 1030)
# The server takes no writes: a failover demoted it to a replica (read_only, super_read_only), or
# InnoDB is read-only (1836), or sessions start read-only transactions (1792, transaction_read_only).
# 1290 says which option refused the statement; only a read-only one is this case. Tried again on a
# new connection, which the failover's DNS name or proxy takes to the new primary.
READ_ONLY = (1792, 1836)
OPTION_REFUSED = 1290


def code_of(error: BaseException) -> int | None:
    """The server's or the client's error number of a PyMySQL error (None for anything else)."""
    return error.args[0] if isinstance(error, pymysql.err.MySQLError) and error.args else None


def out_of_resources(error: BaseException) -> bool:
    code = code_of(error)
    return code in OUT_OF_RESOURCES or (code in NO_SPACE and bool(re.search(r"\b28\b", str(error.args[-1]))))


def read_only(error: BaseException) -> bool:
    code = code_of(error)
    return code in READ_ONLY or (code == OPTION_REFUSED and bool(re.search(r"read.only", str(error.args[-1]), re.I)))


def is_transient(error: BaseException) -> bool:
    """Connection loss, server gone, deadlock or lock timeout, the server out of space or memory
    or taking no writes: the transaction was rolled back (or never began) and may be retried.
    Anything else is a real error."""
    if isinstance(error, pymysql.err.InterfaceError | ConnectionError | TimeoutError):
        return True
    if out_of_resources(error) or read_only(error):
        return True
    return isinstance(error, pymysql.err.OperationalError) and code_of(error) in (
        0, 1040, 1053, 1205, 1213, 1927, 2003, 2006, 2013, 2055)


def port_open(host: str, port: int, timeout: float = 2.0) -> bool:
    try:
        with socket.create_connection((host, port), timeout):
            return True
    except OSError:
        return False


def failure_text(host: str, port: int, probe: Callable[[str, int], bool] = port_open) -> Callable[[BaseException], str]:
    """How a retried MySQL failure at host:port reads in the log: what happened, where. PyMySQL says `(0, '')`
    for a connection that is gone, also when reconnecting to a server that is down, so a lost
    connection is told apart from a refused one by trying the port (`probe`)."""
    where = f"{host}:{port}"
    refused = f"MySQL refused the connection or is unreachable at {where}"

    def describe(error: BaseException) -> str:
        code = code_of(error)
        if code == 2003:
            return refused
        if isinstance(error, TimeoutError) or (code == 2013 and "timed out" in str(error)):
            return (f"MySQL at {where} did not answer within the read timeout (MYSQL_IDLE_TIMEOUT plus a margin): "
                    "a hung or overloaded server, or a network that drops packets")
        if isinstance(error, pymysql.err.InterfaceError | ConnectionError) or code in (0, 2006, 2013, 2055):
            return f"the connection to MySQL at {where} was lost" if probe(host, port) else refused
        if code in (1205, 1213):
            return f"MySQL rolled the transaction back ({first_line(error)})"
        if out_of_resources(error):
            return (f"the SQL server at {where} is out of disk space or memory ({first_line(error)}): free some on it; "
                    "the transaction was rolled back")
        if read_only(error):
            return (f"the SQL server at {where} takes no writes ({first_line(error)}): a failover demoted it, or it is "
                    "a replica; tried again on a new connection; MYSQL_HOST must name the primary")
        return first_line(error)
    return describe
