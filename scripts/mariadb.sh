#!/usr/bin/env bash
# Native MariaDB (Debian's mariadb-server, MySQL-compatible) on a project-local data directory.
#   mariadb.sh start | stop | status | schema
# Accounts: root@127.0.0.1 (admin: schema changes, tests) and $MYSQL_USER@% (the job: only
# SELECT/INSERT/UPDATE). Passwords are random, kept in .local/secrets/*, never on a command line.
source "$(dirname "$0")/lib.sh"

DIR="$LOCAL/mariadb"
DATA="$DIR/data"
SOCK="$DIR/mysqld.sock"
PID="$DIR/mysqld.pid"

ensure_installed() {
  command -v mariadbd >/dev/null && return 0
  [ "$(id -u)" = 0 ] || die "mariadb-server is not installed and this is not root: sudo apt-get install mariadb-server."
  log "installing Debian's mariadb-server"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mariadb-server; } >&2 \
    || die "apt-get install mariadb-server failed: install it by hand, then retry."
  # The package may start a system-wide server on 3306; this project runs its own.
  service mariadb stop >/dev/null 2>&1 || true
}

sql_quote() { local s=${1//\\/\\\\}; printf "'%s'" "${s//\'/\'\'}"; }

root_sql() { mariadb --no-defaults --socket="$SOCK" -uroot "$@"; }

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
GRANT SELECT, INSERT, UPDATE ON \`$MYSQL_DATABASE\`.* TO '$MYSQL_USER'@'%';
SQL
}

# The schema, then the job's table-level DELETE grants (RETENTION_DAYS), which need the tables.
schema() {
  root_sql "$MYSQL_DATABASE" < "$ROOT/sql/schema.sql"
  root_sql <<SQL
GRANT DELETE ON \`$MYSQL_DATABASE\`.\`ingest_batches\` TO '$MYSQL_USER'@'%';
GRANT DELETE ON \`$MYSQL_DATABASE\`.\`rejected_lines\` TO '$MYSQL_USER'@'%';
SQL
  log "schema applied to $MYSQL_DATABASE"
}

start() {
  if pid_alive "$PID"; then log "MariaDB already running (pid $(cat "$PID"))"; return 0; fi
  if port_open 127.0.0.1 "$MYSQL_PORT"; then
    die "port $MYSQL_PORT is taken by another process (a system MySQL?): stop it or set MYSQL_PORT."
  fi
  ensure_installed
  mkdir -p "$DIR"
  if [ ! -d "$DATA/mysql" ]; then
    log "initialising a MariaDB data directory in $DATA"
    mariadb-install-db --no-defaults --user=root --datadir="$DATA" --skip-test-db \
      --auth-root-authentication-method=socket > "$DIR/install.log" 2>&1 \
      || die "mariadb-install-db failed: see $DIR/install.log; remove $DIR to start over."
  fi
  log "starting MariaDB on 127.0.0.1:$MYSQL_PORT (log: $DIR/error.log)"
  setsid nohup mariadbd --no-defaults --user=root --datadir="$DATA" --socket="$SOCK" \
    --port="$MYSQL_PORT" --bind-address=127.0.0.1 --skip-name-resolve --pid-file="$PID" \
    --log-error="$DIR/error.log" --character-set-server=utf8mb4 --collation-server=utf8mb4_bin \
    --innodb-buffer-pool-size=256M --max-connections=200 > /dev/null 2>&1 < /dev/null &
  wait_for "MariaDB" 60 mariadb-admin --no-defaults --socket="$SOCK" -uroot ping || {
    tail -n 20 "$DIR/error.log" >&2 || true
    die "MariaDB did not start within 60 s: see $DIR/error.log."
  }
  bootstrap_accounts
  schema
}

stop() {
  if ! pid_alive "$PID"; then log "MariaDB is not running"; return 0; fi
  local pid; pid=$(cat "$PID")
  mariadb-admin --no-defaults --socket="$SOCK" -uroot shutdown || kill "$pid"
  wait_for "MariaDB shutdown" 60 bash -c "! kill -0 $pid" || kill -9 "$pid" 2>/dev/null || true
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  schema) schema ;;
  status) pid_alive "$PID" && echo "MariaDB running (pid $(cat "$PID"))" || { echo "MariaDB not running"; exit 1; } ;;
  *) die "usage: mariadb.sh start|stop|status|schema" ;;
esac
