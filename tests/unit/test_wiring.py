"""Kafka security options reach both the Spark source and the driver's metadata client;
the fault hook stays inert unless asked, and its kills land where they say; the classes that
conf/ names exist in the Spark that runs the job."""

import re
import ssl
import subprocess
import threading
from pathlib import Path

import pytest

from errorcount import faults
from errorcount.config.load import load_config
from errorcount.errors import ConfigError
from errorcount.kafka.lag_mirror import admin_properties
from errorcount.kafka.topic_metadata import client_options
from errorcount.pipeline.source import source_options
from errorcount.store.mysql import connect_args, session_settings

ROOT = Path(__file__).resolve().parents[2]
SASL_ENV = {
    "KAFKA_BOOTSTRAP_SERVERS": "broker-1:9093,broker-2:9093",
    "KAFKA_OPT_SECURITY_PROTOCOL": "SASL_SSL",
    "KAFKA_OPT_SASL_MECHANISM": "SCRAM-SHA-512",
    "KAFKA_OPT_SASL_JAAS_CONFIG": 'org.apache.kafka.common.security.scram.ScramLoginModule required username="u" password="p";',
    "KAFKA_OPT_SSL_TRUSTSTORE_PASSWORD": "changeit",
}


def test_sasl_ssl_options_reach_the_spark_source(tmp_path):
    conf = tmp_path / "c.conf"
    conf.write_text("kafka.ssl.truststore.location = /etc/kafka/truststore.jks\nMAX_OFFSETS_PER_TRIGGER = 0\n")
    cfg = load_config(["--config", str(conf)], SASL_ENV)
    options = source_options(cfg, '{"t":{"0":-2}}')
    assert options["kafka.security.protocol"] == "SASL_SSL"
    assert options["kafka.isolation.level"] == "read_committed"  # aborted and open transactions never read
    assert options["kafka.sasl.mechanism"] == "SCRAM-SHA-512"
    assert options["kafka.sasl.jaas.config"] == SASL_ENV["KAFKA_OPT_SASL_JAAS_CONFIG"]
    assert options["kafka.ssl.truststore.password"] == "changeit"
    assert options["kafka.ssl.truststore.location"] == "/etc/kafka/truststore.jks"
    assert options["kafka.bootstrap.servers"] == "broker-1:9093,broker-2:9093"
    assert options["startingOffsets"] == '{"t":{"0":-2}}' and options["failOnDataLoss"] == "true"
    assert "maxOffsetsPerTrigger" not in options  # 0 means no limit


def test_the_same_options_reach_the_metadata_client_and_the_lag_mirror():
    cfg = load_config([], {**SASL_ENV, "KAFKA_OPT_ISOLATION_LEVEL": "read_committed"})
    options = client_options(cfg)
    assert options["security.protocol"] == "SASL_SSL"
    assert options["isolation.level"] == "read_committed"  # a partition's end is its last stable offset
    assert options["sasl.jaas.config"].startswith("org.apache.kafka.common.security.scram")
    assert options["bootstrap.servers"] == "broker-1:9093,broker-2:9093"
    mirror = admin_properties(cfg)
    assert {name: mirror[name] for name in ("security.protocol", "sasl.mechanism", "sasl.jaas.config",
                                            "bootstrap.servers")} == {
        "security.protocol": "SASL_SSL", "sasl.mechanism": "SCRAM-SHA-512",
        "sasl.jaas.config": SASL_ENV["KAFKA_OPT_SASL_JAAS_CONFIG"], "bootstrap.servers": "broker-1:9093,broker-2:9093"}
    assert "isolation.level" not in mirror  # a consumer's setting: an admin client warns about it


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


def test_fault_hooks_are_inert_by_default_and_fire_once_at_the_nth_time():
    assert faults.from_env({}) is faults.NO_FAULTS
    assert not any(faults.NO_FAULTS.lose_commit("commit_lost_applied") for _ in range(5))
    hooks = faults.from_env({faults.ENV: "commit_lost_applied@3"})
    assert [hooks.lose_commit("commit_lost_applied") for _ in range(5)] == [False, False, True, False, False]
    assert not hooks.lose_commit("commit_lost_unapplied")
    with pytest.raises(faults.InjectedFailure):
        faults.from_env({faults.ENV: "query_fails"}).fail("query_fails")
    with pytest.raises(ConfigError, match="expected POINT or POINT@N"):
        faults.from_env({faults.ENV: "before_comit"})


def test_kill_during_a_job_lands_while_it_runs_or_else_before_the_block_is_left():
    kills, killed = [], threading.Event()

    def die():
        kills.append("kill")
        killed.set()

    hooks = faults.Faults("during_spark_job", kill=die)
    job = threading.Event()
    with hooks.killed_during("during_spark_job", job.is_set):
        job.set()  # the watcher polls until it sees the job running
        assert killed.wait(10), "the watcher never killed"
        kills.append("job ended")
    assert kills[:2] == ["kill", "job ended"]

    kills.clear()
    with faults.Faults("during_spark_job", kill=die).killed_during("during_spark_job", lambda: False):  # a fresh driver
        kills.append("job ended")
    assert kills == ["job ended", "kill"]  # never seen running: the kill still precedes what follows

    with hooks.killed_during("during_spark_job", job.is_set):  # fired already: inert
        kills.clear()
    assert kills == []


def test_every_class_named_in_the_spark_conf_files_loads(spark):
    """A Spark upgrade that moves a class named in conf/ (4.2 moved the checkpoint file manager)
    must fail here, not at the first batch of a deployed job."""
    names = set()
    for path in [*(ROOT / "conf").glob("*.conf"), *(ROOT / "conf").glob("*.properties")]:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                names.update(re.findall(r"\b(?:org|com)\.[a-z0-9_.]+\.[A-Z][\w$]*", line))
    assert "org.apache.spark.sql.execution.streaming.checkpointing.FileSystemBasedCheckpointFileManager" in names
    assert "org.apache.spark.metrics.sink.PrometheusServlet" in names
    loader = spark.sparkContext._jvm.java.lang.Thread.currentThread().getContextClassLoader()
    for name in sorted(names):
        spark.sparkContext._jvm.java.lang.Class.forName(name, False, loader)  # raises if it is gone
