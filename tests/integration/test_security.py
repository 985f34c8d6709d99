"""Secrets stay out of argv, logs and the Spark UI, Spark's settings of conf/ apply and the driver's
JVM maps the tests' class archive; the job's MySQL user can only read and write rows; names with
quotes and unicode round-trip through every statement."""

import json
import os
import subprocess
import sys
import urllib.request
from datetime import datetime
from pathlib import Path

import pymysql
import pytest

from errorcount import store
from errorcount.config.load import load_config
from errorcount.errors import EXIT_UNAVAILABLE
from errorcount.offsets import of_topic
from errorcount.pipeline.summary import BatchSummary
from errorcount.store import mysql
from errorcount.tools import produce, samples
from tests.harness import class_archive
from tests.harness.drivers import ui_port
from tests.support import ROOT, app_password, apply_sql_file, catch_up, job_connection, local_stack, query, unique

pytestmark = pytest.mark.mysql

KAFKA_SECRET = "kafka-secret-Zq81"
UI_PORT = ui_port()


def app_connection() -> pymysql.Connection:
    env = local_stack()
    return pymysql.connect(host="127.0.0.1", port=int(env["MYSQL_PORT"]), user=env["MYSQL_USER"],
                           password=app_password(), database=env["MYSQL_DATABASE"])


def all_cmdlines() -> str:
    return "\n".join(_read(proc / "cmdline").replace(b"\0", b" ").decode(errors="replace")
                     for proc in Path("/proc").iterdir())


def spark_ui(path: str, api: str = "/api/v1/applications") -> str:
    with urllib.request.urlopen(f"http://127.0.0.1:{UI_PORT}{api}{path}", timeout=10) as response:
        return response.read().decode()


def conf_file(name: str) -> dict[str, str]:
    """conf/NAME's settings as written: `key value` or `key=value` lines, comments left out."""
    lines = (ROOT / "conf" / name).read_text(encoding="utf-8").splitlines()
    pairs = [line.replace("=", " ", 1).split(None, 1) if "=" in line.split()[0] else line.split(None, 1)
             for line in lines if line.strip() and not line.lstrip().startswith("#")]
    return {key: value.strip() for key, value in pairs}


def assert_conf_applies(app_id: str, log: str) -> None:
    """scripts/run.sh names Spark's files of conf/ by path (its SPARK_CONF_DIR is empty): each
    setting of spark-defaults.conf is the application's (or redacted, as its own redaction rule
    hides values that name secrets), metrics.properties' servlet serves Prometheus' format, and
    log4j2.properties keeps Spark's INFO lines out of the log."""
    shown = dict(json.loads(spark_ui(f"/{app_id}/environment"))["sparkProperties"])
    for key, value in conf_file("spark-defaults.conf").items():
        assert shown.get(key) in (value, "*********(redacted)"), (key, shown.get(key), value)
    metrics = conf_file("metrics.properties")["*.sink.prometheusServlet.path"]
    assert '{type="gauges"}' in spark_ui(metrics, api="")
    assert "INFO SparkContext" not in log and "batch 0:" in log


def assert_jvm_maps_the_class_archive(driver) -> None:
    """The driver's JVM maps the class archive of `make class-archive` (tests/harness/class_archive.py),
    which it refuses without a word when its classpath holds a non-empty directory."""
    archive = class_archive.archive()
    if not archive.is_file():
        return  # none built for this JVM (make class-archive reports why): nothing to map
    jvms = [proc for proc in Path("/proc").iterdir() if proc.name.isdigit() and _in_group(proc, driver.process.pid)
            and b"SparkSubmit" in _read(proc / "cmdline")]
    assert jvms, "the driver's JVM is not in its process group"
    assert all(str(archive).encode() in _read(proc / "maps") for proc in jvms), f"{archive} is not mapped"


def _in_group(proc: Path, group: int) -> bool:
    try:
        return os.getpgid(int(proc.name)) == group
    except OSError:
        return False


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


@pytest.mark.slow
def test_secrets_never_reach_argv_logs_or_the_spark_ui_and_conf_applies(clean_error_log, make_topic, start_driver):
    admin, password = clean_error_log, app_password()
    topic, job = make_topic(partitions=1), unique("job")
    jaas = f'org.apache.kafka.common.security.plain.PlainLoginModule required username="u" password="{KAFKA_SECRET}";'
    env = {"MYSQL_PASSWORD": password, "MYSQL_PASSWORD_FILE": "", "KAFKA_OPT_SASL_JAAS_CONFIG": jaas,
           "SPARK_SUBMIT_EXTRA": f"--conf spark.ui.port={UI_PORT}"}
    produce.produce(topic, samples.generate("app", 50, seed=81, start=datetime(2037, 1, 1), minutes=2))
    driver = start_driver(job, topic, env=env)
    catch_up(admin, job, topic, driver)

    cmdlines = all_cmdlines()
    assert "errorcount/main.py" in cmdlines  # the driver is really there to be inspected
    assert password not in cmdlines and KAFKA_SECRET not in cmdlines
    [app] = json.loads(spark_ui(""))
    assert app["name"] == f"errorcount[{job}]", app  # this driver's UI, not another's on a taken port
    app_id = app["id"]
    for page in ("/environment", "/sql", "/jobs"):
        text = spark_ui(f"/{app_id}{page}")
        assert password not in text and KAFKA_SECRET not in text, page
    assert_conf_applies(app_id, driver.log())
    assert_jvm_maps_the_class_archive(driver)
    assert driver.stop() == 0
    log = driver.log()
    assert "batch 0:" in log and password not in log and KAFKA_SECRET not in log


@pytest.mark.parametrize("statement", [
    "CREATE TABLE sneaky (i INT)", "DROP TABLE error_log", "DELETE FROM error_log", "ALTER TABLE error_log ADD x INT",
])
def test_the_job_user_cannot_change_the_schema_or_delete(admin, statement):
    conn = app_connection()
    try:
        with conn.cursor() as cursor, pytest.raises(pymysql.err.OperationalError) as denied:
            cursor.execute(statement)
        assert denied.value.args[0] in (1142, 1044)  # command denied
    finally:
        conn.close()


def test_names_with_quotes_and_unicode_round_trip(admin):
    job = "o'brien \"q\" \\ 日本語 🚀 ; DROP TABLE error_log; -- " + unique("x")
    topic = "t'ö\"🚀"
    conn = job_connection()  # the local stack's port, database and user, whatever the process environment holds
    try:
        job_store = store.Store(conn, job, [topic])
        epoch = job_store.acquire_lease("test ünïcode owner")
        assert job_store.acquire_lease("again") == epoch + 1
        batch = BatchSummary(records=14, rejected=1, dead_letters=((topic, 3, 8, "bad_level", "é'\"".encode()),))
        job_store.commit_batch(batch, {}, of_topic(topic, {0: 5, 3: 9}), {topic: "ID"})
        assert job_store.load_offsets() == of_topic(topic, {0: 5, 3: 9})
        assert store.Store(conn, job.upper(), [topic]).load_offsets() == {}  # byte-wise: a different job
        with mysql.transaction(conn) as cursor:
            cursor.execute("SELECT job, topic, records FROM ingest_batches WHERE job = %s", (job,))
            assert cursor.fetchall() == ((job, topic, 14),)
    finally:
        conn.close()


def local_ca() -> str:
    """The CA of the local server's TLS certificate (MySQL generates it; scripts/db.sh makes
    MariaDB's with openssl)."""
    out = subprocess.run([str(Path(__file__).resolve().parents[2] / "scripts" / "db.sh"), "ca"],
                         check=True, capture_output=True, text=True)
    return out.stdout.strip()


def test_mysql_ssl_ca_makes_the_job_connect_over_verified_tls():
    conn = job_connection(MYSQL_SSL_CA=local_ca(), MYSQL_SSL_MODE="verify_ca")
    try:
        with mysql.transaction(conn) as cursor:
            cursor.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            assert cursor.fetchone()[1], "the session is not encrypted"
    finally:
        conn.close()


@pytest.mark.parametrize("mode, encrypted", [("required", True), ("preferred", True), ("disabled", False)])
def test_mysql_ssl_mode_decides_whether_the_session_is_encrypted(mode, encrypted):
    conn = job_connection(MYSQL_SSL_MODE=mode)
    try:
        for _ in range(3):
            with mysql.transaction(conn) as cursor:
                cursor.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
                assert bool(cursor.fetchone()[1]) == encrypted
        assert conn.made == 1  # an idle connection, TLS or not, reads as open: no reconnect per transaction
    finally:
        conn.close()


def test_verify_identity_refuses_a_certificate_that_does_not_name_the_host():
    """The local server's certificate names errorcount-local-server (or MySQL's generated name), not
    127.0.0.1: verify_ca accepts it (above), verify_identity must not."""
    with pytest.raises(pymysql.err.OperationalError, match="(?i)certificate verify failed|hostname|match"):
        job_connection(MYSQL_SSL_CA=local_ca(), MYSQL_SSL_MODE="verify_identity")


def test_the_job_user_logs_in_without_tls_too(admin):
    """MySQL 8's caching_sha2_password login without TLS exchanges the password under the server's
    RSA key (PyMySQL needs `cryptography` for it). FLUSH PRIVILEGES empties the server's login cache,
    so this is the full login, not the cached fast path. On MariaDB: its native password login."""
    query(admin, "FLUSH PRIVILEGES")
    cfg = load_config([], {"MYSQL_PASSWORD": app_password(), "MYSQL_PORT": local_stack()["MYSQL_PORT"]})
    plain = pymysql.connect(**mysql.connect_args(cfg), ssl_disabled=True)
    try:
        with plain.cursor() as cursor:
            cursor.execute("SHOW SESSION STATUS LIKE 'Ssl_cipher'")
            assert not cursor.fetchone()[1]
            cursor.execute("SELECT CURRENT_USER()")
            assert cursor.fetchone()[0].startswith(local_stack()["MYSQL_USER"] + "@")
    finally:
        plain.close()


def test_a_server_certificate_the_ca_did_not_sign_is_refused():
    other_ca = "/etc/ssl/certs/ca-certificates.crt"  # public CAs: none signed the local server's certificate
    with pytest.raises(pymysql.err.OperationalError, match="(?i)certificate verify failed"):
        job_connection(MYSQL_SSL_CA=other_ca, MYSQL_SSL_MODE="verify_ca")


@pytest.mark.parametrize("held", ["nothing", "ALL PRIVILEGES"])
def test_grants_sql_gives_exactly_the_job_grants_whatever_the_user_held(admin, held):
    """sql/grants.sql on a user with no grant at all (MySQL 8 refused its REVOKE: error 1141) and
    on one with ALL on the database (as the mysql image creates MYSQL_USER); twice: idempotent."""
    user, database = unique("g"), local_stack()["MYSQL_DATABASE"]
    query(admin, f"CREATE USER '{user}'@'%%' IDENTIFIED BY 'x-{user}'")
    try:
        if held != "nothing":
            query(admin, f"GRANT {held} ON `{database}`.* TO '{user}'@'%%'")
        for _ in range(2):
            apply_sql_file(admin, "grants.sql", MYSQL_USER=user, MYSQL_DATABASE=database)
        grants = {row[0].replace("'", "`") for row in query(admin, f"SHOW GRANTS FOR '{user}'@'%%'")}
        assert {g for g in grants if not g.startswith("GRANT USAGE")} == {
            f"GRANT SELECT, INSERT, UPDATE ON `{database}`.* TO `{user}`@`%`",
            f"GRANT DELETE ON `{database}`.`ingest_batches` TO `{user}`@`%`",
            f"GRANT DELETE ON `{database}`.`rejected_lines` TO `{user}`@`%`",
            f"GRANT DELETE ON `{database}`.`error_series_counts` TO `{user}`@`%`",
            f"GRANT DELETE ON `{database}`.`changed_minutes` TO `{user}`@`%`",
        }
    finally:
        query(admin, f"DROP USER '{user}'@'%%'")


def test_make_counts_connects_with_the_jobs_tls_settings(tmp_path):
    """errorcount-counts (make counts) uses the job's connection settings, TLS included: the
    local CA works, a CA that did not sign the server's certificate is refused."""
    env = {**os.environ, "MYSQL_PASSWORD": app_password(), "MYSQL_SSL_MODE": "verify_ca",
           "MYSQL_PORT": local_stack()["MYSQL_PORT"], "ROWS": "1"}
    ok = subprocess.run([sys.executable, "-m", "errorcount.tools.counts"], env={**env, "MYSQL_SSL_CA": local_ca()},
                        capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0 and "ERROR lines in" in ok.stdout, ok.stderr
    refused = subprocess.run([sys.executable, "-m", "errorcount.tools.counts"], capture_output=True, text=True,
                             env={**env, "MYSQL_SSL_CA": "/etc/ssl/certs/ca-certificates.crt"}, timeout=60)
    assert refused.returncode == EXIT_UNAVAILABLE and "certificate verify failed" in refused.stderr.lower(), refused.stderr
