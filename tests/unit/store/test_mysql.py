"""How the store describes a MySQL failure it retries (pure: PyMySQL's exception types only)."""

import pymysql

from errorcount.config.load import load_config
from errorcount.store.mysql import failure_text, is_transient
from errorcount.store.transactions import CommitOutcomeUnknown, retry_outside_batch


def test_retried_failures_say_what_happened_and_where():
    cfg = load_config(["--mysql-host", "db.example", "--mysql-port", "3307"], {})
    describe = failure_text(cfg, probe=lambda host, port: (host, port) == ("db.example", 3307))
    refused = pymysql.err.OperationalError(2003, "Can't connect to MySQL server on 'db.example' ([Errno 111])")
    assert describe(refused) == "MySQL refused the connection or is unreachable at db.example:3307"
    for lost in (pymysql.err.InterfaceError(0, ""), pymysql.err.OperationalError(2013, "Lost connection"),
                 ConnectionResetError(104, "reset")):
        assert describe(lost) == "the connection to MySQL at db.example:3307 was lost"
        assert is_transient(lost)
    deadlock = pymysql.err.OperationalError(1213, "Deadlock found when trying to get lock")
    assert describe(deadlock) == "MySQL rolled the transaction back ((1213, 'Deadlock found when trying to get lock'))"
    assert "(0, '')" not in describe(pymysql.err.InterfaceError(0, ""))
    server_down = failure_text(cfg, probe=lambda host, port: False)  # PyMySQL's (0, '') when reconnecting fails
    assert server_down(pymysql.err.InterfaceError(0, "")) == "MySQL refused the connection or is unreachable at db.example:3307"


def test_a_lost_commit_outside_a_batch_is_tried_again_but_not_a_real_error():
    assert retry_outside_batch(CommitOutcomeUnknown("connection lost during COMMIT"))
    assert retry_outside_batch(pymysql.err.OperationalError(2013, "Lost connection"))
    assert not retry_outside_batch(pymysql.err.ProgrammingError(1146, "Table doesn't exist"))
