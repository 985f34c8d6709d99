#!/usr/bin/env bash
# make setup: the Debian packages the native stack and the tests need, installed once (root).
# Everything else is project-local: the virtualenv (make venv), jars and MySQL from Maven Central.
#   mariadb-server     the default SQL server (scripts/db.sh)
#   libaio1 libnuma1   what Oracle MySQL 8.0's mysqld links (MYSQL_SERVER=mysql, make test-mysql)
#   docker-compose     validates docker-compose.yml (make compose-check); no Docker engine needed
#   openssl            the local CA and server certificate for MariaDB's TLS
LIB_SETTINGS=0
source "$(dirname "$0")/lib.sh"

missing=()
command -v mariadbd >/dev/null || missing+=(mariadb-server)
ldconfig -p | grep -q 'libaio\.so\.1 ' || missing+=(libaio1)
ldconfig -p | grep -q 'libnuma\.so\.1 ' || missing+=(libnuma1)
command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
command -v openssl >/dev/null || missing+=(openssl)
command -v java >/dev/null || missing+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || missing+=(maven)
if [ ${#missing[@]} -gt 0 ]; then
  apt_install "${missing[@]}"
  # mariadb-server may start a system-wide server on 3306; this project runs its own.
  { service mariadb stop || true; } >/dev/null 2>&1
fi
log "system packages present"
