"""Secrets and TLS settings: the MySQL password from the environment or its file, the secrets file a
YARN container reads (the submitter's environment does not follow it there), and the TLS settings
checked against each other. Secrets never come from flags (visible in `ps`) or the shared config
file (errorcount/config/load.py)."""

from collections.abc import Mapping

from errorcount.config.settings import KAFKA_ENV_PREFIX
from errorcount.errors import ConfigError

SECRET_ENV = "MYSQL_PASSWORD"


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


def check_tls(values: dict) -> None:
    """MYSQL_SSL_MODE against the files given, as the MySQL client reads --ssl-mode and --ssl-ca."""
    mode, ca = values["mysql_ssl_mode"], values["mysql_ssl_ca"]
    if bool(values["mysql_ssl_cert"]) != bool(values["mysql_ssl_key"]):
        raise ConfigError("MYSQL_SSL_CERT and MYSQL_SSL_KEY go together: set both or neither")
    if mode.startswith("verify") and not ca:
        raise ConfigError(f"MYSQL_SSL_MODE={mode} checks the server's certificate against MYSQL_SSL_CA: set it "
                          "to the CA file that signed the server's certificate")
    if ca and not mode.startswith("verify"):
        raise ConfigError(f"MYSQL_SSL_CA is set but MYSQL_SSL_MODE={mode} verifies nothing: set "
                          "MYSQL_SSL_MODE=verify_identity (or verify_ca), or unset MYSQL_SSL_CA")
    if values["mysql_ssl_cert"] and mode in ("disabled", "preferred"):
        raise ConfigError(f"MYSQL_SSL_CERT is set but MYSQL_SSL_MODE={mode} may connect without TLS: set "
                          "MYSQL_SSL_MODE=required or stricter")
