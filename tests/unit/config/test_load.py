"""Configuration precedence, validation and secret handling (pure Python)."""

import os
import re
from pathlib import Path

import pytest

from errorcount.config.load import PUBLIC, load_config
from errorcount.errors import ConfigError

BASE_ENV = {"MYSQL_PASSWORD": "env-secret-1"}


def write(tmp_path, text: str) -> str:
    path = tmp_path / "job.conf"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_defaults_apply_without_any_setting():
    cfg = load_config([], {})
    assert (cfg.kafka_topic, cfg.mysql_port, cfg.starting_offsets, cfg.mysql_password) == ("app-logs", 3306, "earliest", "")


def test_precedence_is_default_file_env_flag(tmp_path):
    path = write(tmp_path, "KAFKA_TOPIC = from-file\nJOB_NAME = file-job\nMYSQL_PORT = 3307\nTRIGGER_INTERVAL = 2 seconds\n")
    env = {**BASE_ENV, "JOB_NAME": "env-job", "MYSQL_PORT": "3308"}
    cfg = load_config(["--config", path, "--mysql-port", "3309"], env)
    assert (cfg.kafka_topic, cfg.job_name, cfg.mysql_port, cfg.trigger_interval) == ("from-file", "env-job", 3309, "2 seconds")


def test_an_empty_variable_is_unset_except_where_empty_means_off(tmp_path):
    path = write(tmp_path, "KAFKA_TOPIC = from-file\nJOB_NAME = file-job\n")
    assert load_config(["--config", path], {"KAFKA_TOPIC": ""}).kafka_topic == "from-file"
    assert load_config(["--config", path], {}).kafka_lag_group == "errorcount-file-job"
    assert load_config(["--config", path], {"KAFKA_LAG_GROUP": ""}).kafka_lag_group == ""
    assert load_config([], {"KAFKA_LAG_GROUP": "lag-<job>", "JOB_NAME": "j1"}).kafka_lag_group == "lag-j1"
    assert load_config(["--config", write(tmp_path, "KAFKA_LAG_GROUP =\n")], {}).kafka_lag_group == ""


def test_password_comes_from_file_before_env(tmp_path):
    secret = tmp_path / "pw"
    secret.write_text("file-secret-2\n", encoding="utf-8")
    cfg = load_config([], {**BASE_ENV, "MYSQL_PASSWORD_FILE": str(secret)})
    assert cfg.mysql_password == "file-secret-2"
    assert "file-secret-2" not in repr(cfg)


def test_password_in_config_file_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="must not be in a config file"):
        load_config(["--config", write(tmp_path, "MYSQL_PASSWORD = x\n")], {})


def test_no_password_flag_exists():
    with pytest.raises(SystemExit) as exit_info:
        load_config(["--mysql-password", "x"], {})
    assert exit_info.value.code == 2


def test_kafka_options_from_file_env_and_flags(tmp_path):
    path = write(tmp_path, "kafka.security.protocol = SSL\nkafka.ssl.truststore.location = /a\n")
    env = {"KAFKA_OPT_SASL_JAAS_CONFIG": "module required;", "KAFKA_OPT_SECURITY_PROTOCOL": "SASL_SSL"}
    cfg = load_config(["--config", path, "--kafka-option", "sasl.mechanism=PLAIN"], env)
    assert cfg.kafka_options == {"kafka.security.protocol": "SASL_SSL", "kafka.ssl.truststore.location": "/a",
                                 "kafka.sasl.jaas.config": "module required;", "kafka.sasl.mechanism": "PLAIN"}
    assert "module required" not in repr(cfg)


SECRET_OPTIONS = ["sasl.jaas.config", "ssl.key.password", "ssl.keystore.key", "ssl.keystore.password",
                  "sasl.oauthbearer.client.credentials.client.secret", "sasl.login.token", "SSL.KEYSTORE.KEY"]


@pytest.mark.parametrize("name", SECRET_OPTIONS)
def test_kafka_secrets_on_the_command_line_or_in_the_config_file_are_refused(name, tmp_path):
    with pytest.raises(ConfigError, match="looks like a secret"):
        load_config(["--kafka-option", f"{name}=x"], {})
    with pytest.raises(ConfigError, match="looks like a secret .* set it in the environment as KAFKA_OPT_"):
        load_config(["--config", write(tmp_path, f"kafka.{name} = -----BEGIN PRIVATE KEY-----\n")], {})


def test_an_inline_pem_key_from_the_environment_is_a_secret_everywhere():
    from errorcount.tools.yarn_conf import secret_lines
    cfg = load_config([], {"KAFKA_OPT_SSL_KEYSTORE_KEY": "-----BEGIN PRIVATE KEY-----", "KAFKA_OPT_SSL_KEYSTORE_TYPE": "PEM"})
    assert "BEGIN PRIVATE" not in repr(cfg)
    assert secret_lines(cfg) == ["KAFKA_OPT_SSL_KEYSTORE_KEY=-----BEGIN PRIVATE KEY-----"]  # the 0600 file only
    spark_conf = (Path(__file__).resolve().parents[3] / "conf" / "spark-defaults.conf").read_text()
    for line in spark_conf.splitlines():
        if line.startswith(("spark.redaction.regex", "spark.sql.redaction.options.regex")):
            assert re.search(line.split(None, 1)[1], "kafka.ssl.keystore.key"), line  # redacted in the UI and plans
            assert not re.search(line.split(None, 1)[1], "kafka.ssl.keystore.type"), line


def test_read_uncommitted_is_refused_and_the_ssl_mode_must_fit_its_files():
    with pytest.raises(ConfigError, match="read_committed only"):
        load_config([], {"KAFKA_OPT_ISOLATION_LEVEL": "read_uncommitted"})
    assert load_config([], {"KAFKA_OPT_ISOLATION_LEVEL": "READ_COMMITTED"}).kafka_options
    with pytest.raises(ConfigError, match="MYSQL_SSL_MODE=verify_ca checks the server's certificate against MYSQL_SSL_CA"):
        load_config([], {"MYSQL_SSL_MODE": "verify_ca"})
    with pytest.raises(ConfigError, match="MYSQL_SSL_CA is set but MYSQL_SSL_MODE=preferred verifies nothing"):
        load_config([], {"MYSQL_SSL_CA": "/ca.pem"})
    with pytest.raises(ConfigError, match="MYSQL_SSL_CERT is set but MYSQL_SSL_MODE=preferred"):
        load_config([], {"MYSQL_SSL_CERT": "/c.pem", "MYSQL_SSL_KEY": "/c.key"})
    with pytest.raises(ConfigError, match="MYSQL_SSL_MODE must be disabled, preferred, required, verify_ca or verify_identity"):
        load_config([], {"MYSQL_SSL_MODE": "on"})


def test_a_replaced_setting_in_the_config_file_says_what_replaced_it(tmp_path):
    with pytest.raises(ConfigError, match="MYSQL_SSL_VERIFY_IDENTITY was replaced; use MYSQL_SSL_MODE=verify_identity"):
        load_config(["--config", write(tmp_path, "MYSQL_SSL_VERIFY_IDENTITY = true\n")], {})


def test_options_spark_manages_are_refused():
    with pytest.raises(ConfigError, match="managed by the job"):
        load_config([], {"KAFKA_OPT_AUTO_OFFSET_RESET": "earliest"})


@pytest.mark.parametrize("env, message", [
    ({"MYSQL_PORT": "0"}, "MYSQL_PORT"),
    ({"MYSQL_PORT": "33o6"}, "MYSQL_PORT"),
    ({"KAFKA_TOPIC": "bad topic"}, "KAFKA_TOPIC"),
    ({"STARTING_OFFSETS": "beginning"}, "STARTING_OFFSETS must be earliest or latest, got .beginning."),
    ({"ON_DATA_LOSS": "ignore"}, "ON_DATA_LOSS must be fail or skip"),
    ({"LOG_LEVEL": "loud"}, "LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR"),
    ({"TRIGGER_INTERVAL": "5s"}, "TRIGGER_INTERVAL"),
    ({"MAX_OFFSETS_PER_TRIGGER": "-1"}, "MAX_OFFSETS_PER_TRIGGER"),
    ({"LOG_FORMAT": "xml"}, "LOG_FORMAT must be app, access, json or otlp"),
    ({"ERROR_LEVELS": "ERROR,,FATAL"}, "ERROR_LEVELS must be comma-separated names, none empty"),
    ({"ERROR_LEVELS": " "}, "ERROR_LEVELS must be comma-separated names, none empty"),
    ({"ERROR_LEVELS": "ERROR,50"}, "ERROR_LEVELS must be ASCII letters for app lines"),
    ({"LOG_FORMAT": "json", "JSON_MESSAGE_FIELD": "log", "ERROR_LEVELS": "E-1"}, "ASCII letters for app lines"),
    ({"ERROR_STATUS_MIN": "600"}, "ERROR_STATUS_MIN must be a whole number from 100 to 599"),
    ({"JSON_TIME_FIELDS": "ts,"}, "JSON_TIME_FIELDS must be comma-separated field names"),
    ({"JSON_EPOCH_UNIT": "us"}, "JSON_EPOCH_UNIT must be auto, s or ms"),
    ({"MESSAGE_FORMAT": "json"}, "MESSAGE_FORMAT must be app or access"),
    ({"COUNTS_TABLE": "error-log"}, "COUNTS_TABLE must be an identifier"),
    ({"COUNTS_TABLE": "x" * 65}, "COUNTS_TABLE must be an identifier"),
])
def test_invalid_values_are_config_errors(env, message):
    with pytest.raises(ConfigError, match=message):
        load_config([], env)


def test_log_format_settings_that_fit_together_are_accepted():
    cfg = load_config([], {"LOG_FORMAT": "json", "ERROR_LEVELS": "error, 50 ,FATAL", "JSON_STATUS_FIELD": "status"})
    assert (cfg.log_format, cfg.error_levels, cfg.json_status_field) == ("json", "error, 50 ,FATAL", "status")
    assert load_config([], {"LOG_FORMAT": "access", "ERROR_LEVELS": "5xx"}).error_levels == "5xx"  # not read
    assert load_config([], {"ERROR_LEVELS": "error,Fatal"}).counts_table == "error_log"


def test_unknown_key_and_missing_file_are_config_errors(tmp_path):
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(["--config", write(tmp_path, "KAFKA_TOPICS = x\n")], {})
    with pytest.raises(ConfigError, match="cannot read config file"):
        load_config(["--config", os.path.join(str(tmp_path), "missing.conf")], {})


def test_shipped_config_file_names_every_key():
    shipped = Path(__file__).resolve().parents[3] / "conf" / "errorcount.conf"
    cfg = load_config(["--config", str(shipped)], {})
    text = shipped.read_text(encoding="utf-8")
    assert [s.name for s in PUBLIC if f"\n{s.name} =" not in text] == []
    assert cfg.job_name == "error-counter"


def test_secrets_file_supplies_password_and_kafka_secrets_env_wins(tmp_path):
    secrets = tmp_path / "secrets"
    secrets.write_text("# shipped by submit-yarn.sh\nMYSQL_PASSWORD=file-pw=with=equals\n"
                       "KAFKA_OPT_SASL_JAAS_CONFIG=mod required user=\"u\";\n", encoding="utf-8")
    cfg = load_config(["--secrets-file", str(secrets)], {})
    assert cfg.mysql_password == "file-pw=with=equals"
    assert cfg.kafka_options == {"kafka.sasl.jaas.config": 'mod required user="u";'}
    cfg = load_config(["--secrets-file", str(secrets)], {"MYSQL_PASSWORD": "env-pw"})
    assert cfg.mysql_password == "env-pw"


@pytest.mark.parametrize("line", ["KAFKA_TOPIC=hunter2", "hunter2", "mysql_password=hunter2"])
def test_secrets_file_refuses_other_lines_without_echoing_them(tmp_path, line):
    secrets = tmp_path / "secrets"
    secrets.write_text(f"MYSQL_PASSWORD=ok\n{line}\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="line 2") as error:
        load_config(["--secrets-file", str(secrets)], {})
    assert "hunter2" not in error.value.message


def test_trigger_intervals_read_in_seconds():
    from errorcount.config.load import interval_seconds

    assert [interval_seconds(t) for t in ("500 milliseconds", "1 second", "5 seconds", "2 minutes")] == [0.5, 1, 5, 120]


def test_generated_files_match_the_settings():
    """conf/errorcount.conf, errorcount/config/config_type.py and the reference table are written from
    SETTINGS by `make config-docs`: a setting added without regenerating fails here."""
    from errorcount.config import settings
    root = Path(__file__).resolve().parents[3]
    assert (root / "conf" / "errorcount.conf").read_text(encoding="utf-8") == settings.render_conf()
    assert (root / "errorcount" / "config" / "config_type.py").read_text(encoding="utf-8") == settings.render_config_type()
    page = (root / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert page == settings.with_table(page)


def test_config_fields_are_the_settings_with_their_types():
    """An independent reading of the generated class: its annotations, in order, against SETTINGS."""
    import dataclasses

    from errorcount.config.load import Config
    from errorcount.config.settings import SETTINGS
    declared = [(f.name, f.type) for f in dataclasses.fields(Config)]
    assert declared == [(s.name.lower(), s.kind) for s in SETTINGS] + [("kafka_options", dict[str, str])]
