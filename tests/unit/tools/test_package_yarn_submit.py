"""What submit-yarn.sh ships: the resolved configuration must load in the container exactly as it
resolved on the submitting host, secrets only in the 0600 file; the app zip is reproducible."""

import dataclasses
import os
import shutil
import stat
import zipfile

from errorcount.config.load import load_config
from errorcount.tools import package, yarn_conf

ENV = {"KAFKA_TOPIC": "t-env", "JOB_NAME": "job-env", "MYSQL_PASSWORD": "pw-hunter2", "STOP_MARKER": "hdfs:///x/STOP",
       "KAFKA_OPT_SASL_JAAS_CONFIG": "mod required password=\"hunter2\";", "KAFKA_OPT_SECURITY_PROTOCOL": "SASL_SSL",
       "MYSQL_SSL_MODE": "required"}


def test_resolved_config_loads_in_the_container_as_on_the_submitter(tmp_path, monkeypatch):
    conf = tmp_path / "job.conf"
    conf.write_text("TRIGGER_INTERVAL = 3 seconds\nkafka.ssl.truststore.location = /etc/ts.jks\n", encoding="utf-8")
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    argv = ["--config", str(conf), "--dead-letter-limit", "7"]
    assert yarn_conf.main([str(tmp_path), *argv]) == 0
    submitter = load_config(argv, ENV)

    monkeypatch.chdir(tmp_path)  # the container's working directory holds the shipped files
    for name in ENV:
        monkeypatch.delenv(name)
    container = load_config(["--config", "errorcount.conf"], {})
    assert container.secrets_file == "errorcount-secrets"  # the shipped file, in place of the submitter's
    assert dataclasses.replace(container, secrets_file="") == submitter
    assert (container.mysql_password, container.kafka_options) == (submitter.mysql_password, submitter.kafka_options)

    shipped = (tmp_path / "errorcount.conf").read_text(encoding="utf-8")
    assert "hunter2" not in shipped
    assert "hunter2" in (tmp_path / "errorcount-secrets").read_text(encoding="utf-8")
    assert stat.S_IMODE(os.stat(tmp_path / "errorcount-secrets").st_mode) == 0o600


def test_invalid_config_stops_the_submission_with_exit_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("STARTING_OFFSETS", "sometimes")
    assert yarn_conf.main([str(tmp_path)]) == 2
    assert "STARTING_OFFSETS" in capsys.readouterr().err
    assert not (tmp_path / "errorcount.conf").exists()


def test_app_zip_is_byte_for_byte_reproducible(tmp_path):
    first, second = tmp_path / "a.zip", tmp_path / "b.zip"
    package.app_zip(first)
    # On a copy of the sources (the checkout stays clean): compiled files never enter the zip.
    copy = tmp_path / "tree"
    shutil.copytree(package.ROOT / "errorcount", copy / "errorcount", ignore=shutil.ignore_patterns("__pycache__"))
    compiled = copy / "errorcount" / "__pycache__"
    compiled.mkdir()
    (compiled / "job.cpython-311.pyc").write_bytes(b"not source")
    package.app_zip(second, copy)
    assert first.read_bytes() == second.read_bytes()
    names = zipfile.ZipFile(first).namelist()
    assert "errorcount/main.py" in names and "errorcount/supervisor.py" in names
    assert all(name.endswith(".py") and name.startswith("errorcount/") for name in names)
    assert not any(name.startswith(("errorcount/tools/", "tests/")) for name in names)  # not the job's
