"""Job configuration: built-in defaults < config file < environment < command-line flags.

Every setting is declared once in errorcount/config/settings.py; the Config type, the flags, the parsing
and the validation below all come from that list. Secrets (MYSQL_PASSWORD, Kafka SASL/SSL
passwords) are accepted only from the environment or a file, never from flags (visible in `ps`)
or the shared config file.

    python -m errorcount.config get KEY [--config FILE]   the effective value, as the job resolves it
    python -m errorcount.config conf                      the generated conf/errorcount.conf
    python -m errorcount.config type                      the generated errorcount/config/config_type.py
    python -m errorcount.config docs PAGE                 puts the reference table into PAGE
"""

import argparse
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

from errorcount import __version__
from errorcount.config import dimensions
from errorcount.config.config_type import Config
from errorcount.config.secrets import SECRET_ENV, check_tls, read_password, read_secrets_file
from errorcount.config.settings import (
    BY_NAME,
    KAFKA_ENV_PREFIX,
    REPLACED,
    SECRET_OPTION,
    SETTINGS,
    Setting,
    render_conf,
    render_config_type,
    with_table,
)
from errorcount.errors import EXIT_CONFIG, ConfigError

# Options the Spark Kafka source manages itself and rejects, see the Kafka integration guide.
SPARK_MANAGED = {"auto.offset.reset", "enable.auto.commit", "key.deserializer",
                 "value.deserializer", "interceptor.classes", "group.id"}
PUBLIC = tuple(s for s in SETTINGS if not s.secret)



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
        elif key in BY_NAME and BY_NAME[key].secret:
            raise ConfigError(f"{where}: {key} must not be in a config file; "
                              f"set the environment variable or {key}_FILE")
        elif key in BY_NAME:
            settings[key] = value
        elif key in REPLACED:
            raise ConfigError(f"{where}: {key} was replaced; use {REPLACED[key]}")
        else:
            raise ConfigError(f"{where}: unknown key {key!r}; known keys: {', '.join(s.name for s in PUBLIC)} and kafka.*")
    return settings, kafka


def kafka_options_from_env(env: Mapping[str, str]) -> dict[str, str]:
    return {"kafka." + name[len(KAFKA_ENV_PREFIX):].lower().replace("_", "."): value
            for name, value in env.items() if name.startswith(KAFKA_ENV_PREFIX)}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="errorcount", allow_abbrev=False,  # else --mysql-password would abbreviate --mysql-password-file
        description="Count ERROR log lines per minute from Kafka into MySQL, exactly once.")
    parser.add_argument("--version", action="version", version=f"errorcount {__version__}")
    parser.add_argument("--config", help="config file (KEY = value lines); default: none")
    for s in PUBLIC:
        parser.add_argument(s.flag, dest=s.name, help=f"{s.doc} (env {s.name}; default {s.default!r})")
    parser.add_argument("--kafka-option", action="append", default=[], metavar="NAME=VALUE",
                        help="extra Kafka client option, e.g. security.protocol=SSL (no secrets here)")
    return parser.parse_args(argv)


def merged_settings(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The raw text of every public setting after the precedence rules, and the file's kafka.* options."""
    file_settings, file_kafka = read_config_file(args.config) if args.config else ({}, {})
    merged = {s.name: s.default for s in PUBLIC}
    merged.update(file_settings)
    # An empty variable is unset (compose files pass `${VAR:-}`), unless "" means something (off).
    merged.update({s.name: env[s.name] for s in PUBLIC if env.get(s.name) or (s.empty_is_value and s.name in env)})
    merged.update({s.name: getattr(args, s.name) for s in PUBLIC if getattr(args, s.name) is not None})
    return merged, file_kafka


def load_config(argv: list[str], env: Mapping[str, str]) -> Config:
    """Merges defaults, file, environment and flags, then validates; raises ConfigError."""
    args = parse_args(argv)
    merged, file_kafka = merged_settings(args, env)
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
    merged[SECRET_ENV] = read_password(merged, env)
    return validate(merged, kafka_options)


def typed(s: Setting, text: str):
    """One setting's value from its text, checked against its declaration; raises ConfigError."""
    value = text.strip()
    if s.kind is int:
        if not re.fullmatch(r"\d+", value) or not s.low <= int(value) <= s.high:
            raise ConfigError(f"{s.name} must be a whole number from {s.low} to {s.high}, got {text!r}")
        return int(value)
    if s.kind is bool:
        if value.lower() not in ("true", "false"):
            raise ConfigError(f"{s.name} must be true or false, got {text!r}")
        return value.lower() == "true"
    if s.choices:
        chosen = next((c for c in s.choices if c.lower() == value.lower()), None)
        if chosen is None:
            allowed = ", ".join(s.choices[:-1]) + " or " + s.choices[-1]
            raise ConfigError(f"{s.name} must be {allowed}, got {text!r}")
        return chosen
    if s.pattern and not re.fullmatch(s.pattern, value):
        raise ConfigError(f"{s.name} must be {s.shape}, got {text!r}")
    return value


def interval_seconds(text: str) -> float:
    """A TRIGGER_INTERVAL value ('500 milliseconds', '5 seconds', '1 minute') in seconds."""
    number, unit = text.split()
    return int(number) * (0.001 if unit.startswith("milli") else 60 if unit.startswith("minute") else 1)


def validate(merged: dict[str, str], kafka_options: dict[str, str]) -> Config:
    """The rules between settings; each setting's own rule comes from its declaration (typed)."""
    managed = sorted(name for name in kafka_options if name[6:] in SPARK_MANAGED)
    if managed:
        raise ConfigError(f"Kafka options {managed} are managed by the job and Spark; remove them")
    isolation = kafka_options.get("kafka.isolation.level", "read_committed")
    if isolation.strip().lower() != "read_committed":
        raise ConfigError(f"kafka.isolation.level={isolation} would count records of aborted and open Kafka "
                          "transactions; the job reads read_committed only: remove the option")
    values: dict[str, Any] = {s.field: (merged[s.name] if s.secret else typed(s, merged[s.name])) for s in SETTINGS}
    check_tls(values)
    app_lines = values["log_format"] == "app" or (values["log_format"] == "json" and values["json_message_field"]
                                                   and values["message_format"] == "app")
    if app_lines and not all(re.fullmatch(r"[A-Za-z]+", name.strip()) for name in values["error_levels"].split(",")):
        raise ConfigError(f"ERROR_LEVELS must be ASCII letters for app lines (LEVEL is letters), got "
                          f"{values['error_levels']!r}; list level names such as ERROR,FATAL")
    if values["kafka_topic_pattern"] and values["kafka_topic"] == BY_NAME["KAFKA_TOPIC"].default:
        values["kafka_topic"] = ""  # the pattern replaces the default topic
    values["kafka_topic"] = canonical_topics(values["kafka_topic"], values["kafka_topic_pattern"])
    values["group_by"] = dimensions.canonical(values["group_by"], values)
    values["kafka_lag_group"] = values["kafka_lag_group"].replace("<job>", values["job_name"])
    return Config(**values, kafka_options=kafka_options)


def canonical_topics(text: str, pattern: str) -> str:
    """KAFKA_TOPIC as the job keeps it: the names without spaces, each once; exactly one of it and
    KAFKA_TOPIC_PATTERN set (ConfigError otherwise)."""
    if bool(text) == bool(pattern):
        raise ConfigError("set one of KAFKA_TOPIC (a topic or a list) and KAFKA_TOPIC_PATTERN (a regex), not "
                          + (f"both (KAFKA_TOPIC={text}): leave KAFKA_TOPIC unset to read the pattern" if text
                             else "neither"))
    if not text:
        return ""
    names = [name.strip() for name in text.split(",")]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ConfigError(f"KAFKA_TOPIC names {', '.join(repeated)} more than once: list each topic once")
    return ",".join(names)


def topics(cfg: Config) -> list[str]:
    """The topics KAFKA_TOPIC lists, in the order given (none with KAFKA_TOPIC_PATTERN)."""
    return cfg.kafka_topic.split(",") if cfg.kafka_topic else []


def public_values(merged: Mapping[str, str]) -> dict[str, "str | ConfigError"]:
    """Every non-secret setting of `merged` (merged_settings: environment > config file > default) as
    a shell reads it (a boolean as true/false, unset as ""), or the ConfigError saying why its value
    is not valid: one setting in error does not hide the others (make down needs no valid
    TRIGGER_INTERVAL)."""
    values: dict[str, str | ConfigError] = {}
    for s in PUBLIC:
        try:
            value = typed(s, merged[s.name]) if merged[s.name] else ""
            values[s.name] = str(value).lower() if isinstance(value, bool) else str(value)
        except ConfigError as error:
            values[s.name] = error
    return values


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["conf"]:
        sys.stdout.write(render_conf())
    elif argv[:1] == ["type"]:
        sys.stdout.write(render_config_type())
    elif argv[:1] == ["docs"] and len(argv) == 2:
        with open(argv[1], encoding="utf-8") as handle:
            page = with_table(handle.read())
        with open(argv[1], "w", encoding="utf-8") as handle:
            handle.write(page)
    elif argv[:1] == ["get"] and len(argv) >= 2 and argv[1] in BY_NAME and not BY_NAME[argv[1]].secret:
        try:
            value = public_values(merged_settings(parse_args(argv[2:]), os.environ)[0])[argv[1]]
        except ConfigError as error:
            value = error
        if isinstance(value, ConfigError):
            print(f"config error: {value.message}", file=sys.stderr)
            return EXIT_CONFIG
        print(value)
    else:
        print(__doc__, file=sys.stderr)
        return EXIT_CONFIG
    return 0


if __name__ == "__main__":
    sys.exit(main())
