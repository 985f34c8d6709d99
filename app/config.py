"""Job configuration: built-in defaults < config file < environment < command-line flags.

Every key has the same name in the file and the environment (e.g. KAFKA_TOPIC) and a flag
(--kafka-topic). Secrets (MYSQL_PASSWORD, Kafka SASL/SSL passwords) are accepted only from the
environment or a file, never from flags (visible in `ps`) or the shared config file.
"""

import argparse
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.errors import ConfigError

# key: (default, description). The order is the order of conf/errorcount.conf.
KEYS: dict[str, tuple[str, str]] = {
    "KAFKA_BOOTSTRAP_SERVERS": ("127.0.0.1:9092", "Kafka bootstrap servers, comma-separated"),
    "KAFKA_TOPIC": ("app-logs", "topic holding one log event per record"),
    "JOB_NAME": ("error-counter", "names this job's offsets in MySQL; one running instance per name"),
    "MYSQL_HOST": ("127.0.0.1", "MySQL host"),
    "MYSQL_PORT": ("3306", "MySQL port"),
    "MYSQL_DATABASE": ("errorcount", "database holding error_log and kafka_offsets"),
    "MYSQL_USER": ("errorcount", "MySQL user (needs SELECT, INSERT, UPDATE only)"),
    "MYSQL_PASSWORD_FILE": ("", "file holding the MySQL password (else env MYSQL_PASSWORD)"),
    "SECRETS_FILE": ("", "file of NAME=value lines for MYSQL_PASSWORD and KAFKA_OPT_* (the environment wins)"),
    "MYSQL_CONNECT_TIMEOUT": ("10", "seconds to wait for a MySQL connection"),
    "MYSQL_SSL_CA": ("", "CA file: connect to MySQL over TLS and verify the server certificate"),
    "MYSQL_SSL_CERT": ("", "client certificate file for MySQL TLS (with MYSQL_SSL_KEY)"),
    "MYSQL_SSL_KEY": ("", "client key file for MySQL TLS"),
    "MYSQL_SSL_VERIFY_IDENTITY": ("true", "with MYSQL_SSL_CA: also check the server's host name"),
    "TRIGGER_INTERVAL": ("1 second", "micro-batch interval"),
    "MAX_OFFSETS_PER_TRIGGER": ("500000", "most records per micro-batch (0 = no limit)"),
    "SINGLE_TASK_MAX_RECORDS": ("10000", "batches of at most this many records run as one Spark task, "
                                         "without a shuffle (0 = never)"),
    "STARTING_OFFSETS": ("earliest", "where partitions without stored offsets start: earliest|latest"),
    "KAFKA_TIMEOUT": ("30", "seconds one Kafka metadata request may take"),
    "RETRY_SECONDS": ("300", "how long MySQL/Kafka may be away before the job gives up (exit 5)"),
    "ON_DATA_LOSS": ("fail", "stored offsets Kafka no longer holds: fail (exit 4) or skip (recorded)"),
    "DEAD_LETTER_LIMIT": ("1000", "most rejected records per batch kept in rejected_lines (0 = none)"),
    "RETENTION_DAYS": ("30", "days dead letters and per-batch ledger rows are kept (older ledger rows "
                             "are merged per UTC day); 0 = keep all"),
    "STOP_MARKER": ("", "path (any Hadoop file system) whose existence stops the job at a batch boundary"),
    "LOG_LEVEL": ("INFO", "Python log level of the driver"),
}
SECRET_ENV = "MYSQL_PASSWORD"
KAFKA_ENV_PREFIX = "KAFKA_OPT_"  # KAFKA_OPT_SECURITY_PROTOCOL=SSL -> kafka.security.protocol
# Options the Spark Kafka source manages itself and rejects, see the Kafka integration guide.
SPARK_MANAGED = {"auto.offset.reset", "enable.auto.commit", "key.deserializer",
                 "value.deserializer", "interceptor.classes", "group.id"}
SECRET_OPTION = re.compile(r"password|jaas|secret|token", re.IGNORECASE)
TOPIC_NAME = re.compile(r"[A-Za-z0-9._-]{1,249}")
INTERVAL = re.compile(r"\d+ (milliseconds?|seconds?|minutes?)")


@dataclass(frozen=True)
class Config:
    """Validated settings of one job run. The password never appears in repr()."""

    kafka_bootstrap_servers: str
    kafka_topic: str
    job_name: str
    mysql_host: str
    mysql_port: int
    mysql_database: str
    mysql_user: str
    mysql_connect_timeout: int
    mysql_ssl_ca: str
    mysql_ssl_cert: str
    mysql_ssl_key: str
    mysql_ssl_verify_identity: bool
    trigger_interval: str
    max_offsets_per_trigger: int
    single_task_max_records: int
    starting_offsets: str
    kafka_timeout: int
    retry_seconds: int
    on_data_loss: str
    dead_letter_limit: int
    retention_days: int
    stop_marker: str
    log_level: str
    kafka_options: dict[str, str] = field(default_factory=dict, repr=False)
    mysql_password: str = field(default="", repr=False)


def flag(key: str) -> str:
    return "--" + key.lower().replace("_", "-")


def read_config_file(path: str) -> tuple[dict[str, str], dict[str, str]]:
    """Parses KEY = value lines; returns (settings, kafka.* options). Unknown keys are errors."""
    settings, kafka = {}, {}
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror}; pass an existing file with --config") from None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = (part.strip() for part in line.partition("="))
        where = f"{path}:{number}"
        if not sep:
            raise ConfigError(f"{where}: expected KEY = value, got {line!r}")
        if key.startswith("kafka."):
            kafka[key] = value
        elif key == SECRET_ENV:
            raise ConfigError(f"{where}: {SECRET_ENV} must not be in a config file; "
                              f"set the environment variable or {SECRET_ENV}_FILE")
        elif key in KEYS:
            settings[key] = value
        else:
            raise ConfigError(f"{where}: unknown key {key!r}; known keys: {', '.join(KEYS)} and kafka.*")
    return settings, kafka


def kafka_options_from_env(env: Mapping[str, str]) -> dict[str, str]:
    return {"kafka." + name[len(KAFKA_ENV_PREFIX):].lower().replace("_", "."): value
            for name, value in env.items() if name.startswith(KAFKA_ENV_PREFIX)}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="errorcount", allow_abbrev=False,  # else --mysql-password would abbreviate --mysql-password-file
        description="Count ERROR log lines per minute from Kafka into MySQL, exactly once.")
    parser.add_argument("--config", help="config file (KEY = value lines); default: none")
    for key, (default, text) in KEYS.items():
        parser.add_argument(flag(key), dest=key, help=f"{text} (env {key}; default {default!r})")
    parser.add_argument("--kafka-option", action="append", default=[], metavar="NAME=VALUE",
                        help="extra Kafka client option, e.g. security.protocol=SSL (no secrets here)")
    return parser.parse_args(argv)


def load_config(argv: list[str], env: Mapping[str, str]) -> Config:
    """Merges defaults, file, environment and flags, then validates; raises ConfigError."""
    args = parse_args(argv)
    file_settings, file_kafka = read_config_file(args.config) if args.config else ({}, {})
    merged = {key: default for key, (default, _) in KEYS.items()}
    merged.update(file_settings)
    merged.update({key: env[key] for key in KEYS if env.get(key)})
    merged.update({key: getattr(args, key) for key in KEYS if getattr(args, key) is not None})

    cli_kafka = {}
    for option in args.kafka_option:
        name, sep, value = option.partition("=")
        if not sep:
            raise ConfigError(f"--kafka-option {option!r}: expected NAME=VALUE")
        cli_kafka["kafka." + name.removeprefix("kafka.")] = value
    for source, options in (("the config file", file_kafka), ("--kafka-option", cli_kafka)):
        secret = next((name for name in options if SECRET_OPTION.search(name)), None)
        if secret:
            raise ConfigError(f"{secret} looks like a secret and must not come from {source}; "
                              f"set it in the environment as {KAFKA_ENV_PREFIX}{secret[6:].upper().replace('.', '_')}")
    if merged["SECRETS_FILE"]:
        env = {**read_secrets_file(merged["SECRETS_FILE"]), **env}
    kafka_options = {**file_kafka, **kafka_options_from_env(env), **cli_kafka}
    return validate(merged, kafka_options, read_password(merged, env))


def read_secrets_file(path: str) -> dict[str, str]:
    """NAME=value lines (MYSQL_PASSWORD, KAFKA_OPT_*): how secrets reach a driver that runs in a
    YARN container, where the submitter's environment does not follow (see scripts/submit-yarn.sh)."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError as error:
        raise ConfigError(f"cannot read SECRETS_FILE {path}: {error.strerror}") from None
    secrets = {}
    for number, raw in enumerate(lines, 1):
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        name, sep, value = raw.partition("=")
        name = name.strip()
        if not sep or not (name == SECRET_ENV or name.startswith(KAFKA_ENV_PREFIX)):
            # The line itself may hold a secret: name its number only.
            raise ConfigError(f"SECRETS_FILE {path}, line {number}: expected {SECRET_ENV}=... or "
                              f"{KAFKA_ENV_PREFIX}NAME=...; fix that line")
        secrets[name] = value
    return secrets


def read_password(merged: dict[str, str], env: Mapping[str, str]) -> str:
    path = merged["MYSQL_PASSWORD_FILE"]
    if path:
        try:
            with open(path, encoding="utf-8") as handle:
                return handle.read().rstrip("\r\n")
        except OSError as error:
            raise ConfigError(f"cannot read MYSQL_PASSWORD_FILE {path}: {error.strerror}") from None
    return env.get(SECRET_ENV, "")


def as_int(merged: dict[str, str], key: str, low: int, high: int) -> int:
    value = merged[key]
    if not re.fullmatch(r"\d+", value.strip()) or not low <= int(value) <= high:
        raise ConfigError(f"{key} must be a whole number from {low} to {high}, got {value!r}")
    return int(value)


def as_bool(merged: dict[str, str], key: str) -> bool:
    value = merged[key].strip().lower()
    if value not in ("true", "false"):
        raise ConfigError(f"{key} must be true or false, got {merged[key]!r}")
    return value == "true"


def validate(merged: dict[str, str], kafka_options: dict[str, str], password: str) -> Config:
    managed = sorted(name for name in kafka_options if name[6:] in SPARK_MANAGED)
    if managed:
        raise ConfigError(f"Kafka options {managed} are managed by the job and Spark; remove them")
    if not TOPIC_NAME.fullmatch(merged["KAFKA_TOPIC"]):
        raise ConfigError(f"KAFKA_TOPIC {merged['KAFKA_TOPIC']!r} is not a valid Kafka topic name")
    if not 0 < len(merged["JOB_NAME"]) <= 200:
        raise ConfigError("JOB_NAME must be 1 to 200 characters")
    if not INTERVAL.fullmatch(merged["TRIGGER_INTERVAL"]):
        raise ConfigError(f"TRIGGER_INTERVAL must look like '5 seconds', got {merged['TRIGGER_INTERVAL']!r}")
    if merged["STARTING_OFFSETS"] not in ("earliest", "latest"):
        raise ConfigError(f"STARTING_OFFSETS must be earliest or latest, got {merged['STARTING_OFFSETS']!r}")
    if merged["ON_DATA_LOSS"] not in ("fail", "skip"):
        raise ConfigError(f"ON_DATA_LOSS must be fail or skip, got {merged['ON_DATA_LOSS']!r}")
    if bool(merged["MYSQL_SSL_CERT"]) != bool(merged["MYSQL_SSL_KEY"]):
        raise ConfigError("MYSQL_SSL_CERT and MYSQL_SSL_KEY go together: set both or neither")
    if not merged["KAFKA_BOOTSTRAP_SERVERS"].strip():
        raise ConfigError("KAFKA_BOOTSTRAP_SERVERS is empty")
    return Config(
        kafka_bootstrap_servers=merged["KAFKA_BOOTSTRAP_SERVERS"].strip(),
        kafka_topic=merged["KAFKA_TOPIC"],
        job_name=merged["JOB_NAME"],
        mysql_host=merged["MYSQL_HOST"],
        mysql_port=as_int(merged, "MYSQL_PORT", 1, 65535),
        mysql_database=merged["MYSQL_DATABASE"],
        mysql_user=merged["MYSQL_USER"],
        mysql_connect_timeout=as_int(merged, "MYSQL_CONNECT_TIMEOUT", 1, 3600),
        mysql_ssl_ca=merged["MYSQL_SSL_CA"],
        mysql_ssl_cert=merged["MYSQL_SSL_CERT"],
        mysql_ssl_key=merged["MYSQL_SSL_KEY"],
        mysql_ssl_verify_identity=as_bool(merged, "MYSQL_SSL_VERIFY_IDENTITY"),
        trigger_interval=merged["TRIGGER_INTERVAL"],
        max_offsets_per_trigger=as_int(merged, "MAX_OFFSETS_PER_TRIGGER", 0, 2**62),
        single_task_max_records=as_int(merged, "SINGLE_TASK_MAX_RECORDS", 0, 2**62),
        starting_offsets=merged["STARTING_OFFSETS"],
        kafka_timeout=as_int(merged, "KAFKA_TIMEOUT", 1, 3600),
        retry_seconds=as_int(merged, "RETRY_SECONDS", 0, 7 * 24 * 3600),
        on_data_loss=merged["ON_DATA_LOSS"],
        dead_letter_limit=as_int(merged, "DEAD_LETTER_LIMIT", 0, 100_000),
        retention_days=as_int(merged, "RETENTION_DAYS", 0, 36_500),
        stop_marker=merged["STOP_MARKER"].strip(),
        log_level=merged["LOG_LEVEL"].upper(),
        kafka_options=kafka_options,
        mysql_password=password,
    )
