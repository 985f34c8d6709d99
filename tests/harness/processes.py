"""The local stack's server processes as the scripts keep them (scripts/db.sh, scripts/kafka.sh
write a PID file under .local/): for tests and make chaos that SIGKILL or SIGSTOP a server."""

from errorcount.tools import ROOT
from errorcount.tools.localenv import local_stack

PID_FILES = {"mariadb": "mysqld.pid", "mysql": "mysqld.pid", "kafka": "broker.pid"}


def sql_server() -> str:
    """The native SQL server the stack runs: 'mariadb' or 'mysql' (MYSQL_SERVER)."""
    return local_stack()["MYSQL_SERVER"]


def pid_of(service: str) -> int:
    """The running process of `service` ('kafka', or the SQL server's name) from its PID file."""
    return int((ROOT / ".local" / service / PID_FILES[service]).read_text(encoding="utf-8").strip())
