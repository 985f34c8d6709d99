"""Resolves the job's configuration on the submitting host, for a driver that will run in a YARN
container where neither this host's environment nor its files exist.

  yarn_conf.py OUTDIR [--config FILE] [FLAGS...]

Validates everything as the driver would (a config error stops the submission, exit 2), then
writes OUTDIR/errorcount.conf (every setting, effective values, no secrets) and OUTDIR/errorcount-secrets
(0600: MYSQL_PASSWORD and secret Kafka options as KAFKA_OPT_* lines), both shipped with --files.
Prints the effective settings (no secrets) for the submission log.
"""

import os
import sys
from pathlib import Path

from errorcount.config.load import PUBLIC, Config, load_config
from errorcount.config.settings import KAFKA_ENV_PREFIX, SECRET_OPTION
from errorcount.errors import EXIT_CONFIG, ConfigError

CONF_NAME, SECRETS_NAME = "errorcount.conf", "errorcount-secrets"


def settings(cfg: Config) -> dict[str, str]:
    """Every KEY with its effective value; the two file paths are replaced by the shipped file."""
    values = {}
    for setting in PUBLIC:
        value = getattr(cfg, setting.field)
        values[setting.name] = str(value).lower() if isinstance(value, bool) else str(value)
    values["MYSQL_PASSWORD_FILE"] = ""
    values["SECRETS_FILE"] = SECRETS_NAME
    return values


def secret_lines(cfg: Config) -> list[str]:
    lines = [f"MYSQL_PASSWORD={cfg.mysql_password}"] if cfg.mysql_password else []
    for name, value in sorted(cfg.kafka_options.items()):
        if SECRET_OPTION.search(name):
            lines.append(f"{KAFKA_ENV_PREFIX}{name[len('kafka.'):].upper().replace('.', '_')}={value}")
    return lines


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0])
    try:
        cfg = load_config(argv[1:], os.environ)
    except ConfigError as error:
        print(f"config error: {error.message}", file=sys.stderr)
        return EXIT_CONFIG
    values = settings(cfg)
    public = [f"{key} = {value}" for key, value in values.items()]
    public += [f"{name} = {value}" for name, value in sorted(cfg.kafka_options.items()) if not SECRET_OPTION.search(name)]
    (out / CONF_NAME).write_text("# Resolved by errorcount/tools/yarn_conf.py at submission.\n" + "\n".join(public) + "\n",
                                 encoding="utf-8")
    secrets = out / SECRETS_NAME
    fd = os.open(secrets, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("".join(line + "\n" for line in secret_lines(cfg)))
    print("\n".join(public))
    return 0


if __name__ == "__main__":
    sys.exit(main())
