#!/usr/bin/env bash
# Kafka + MySQL for local runs and tests.
#   stack.sh up | down | status | schema | compose-check | remove-volumes | mode
# `up` uses docker-compose.yml when a Docker engine answers (or STACK=docker), otherwise the
# native stack (STACK=native): KRaft Kafka from Maven jars and the SQL server MYSQL_SERVER names
# (Debian's MariaDB or Oracle MySQL 8.0 from Maven Central, scripts/db.sh), all in .local/.
# Same ports and credentials either way; idempotent.
source "$(dirname "$0")/lib.sh"

compose() {
  if docker compose version >/dev/null 2>&1; then docker compose "$@"; else docker-compose "$@"; fi
}

engine_answers() { timeout 5 docker info >/dev/null 2>&1; }

mode() {
  case "${STACK:-auto}" in
    docker|native) echo "$STACK" ;;
    auto) if engine_answers; then echo docker; else echo native; fi ;;
    *) die "STACK must be auto, docker or native (got '$STACK')." ;;
  esac
}

admin_sql() {  # SQL from stdin as the admin account, with the mysql container's own client
  # shellcheck disable=SC2016  # expanded inside the container, where the secret and the variable are
  compose exec -T mysql sh -c 'MYSQL_PWD="$(cat /run/secrets/mysql_root_password)" exec mysql -uroot "$MYSQL_DATABASE"'
}

case "${1:-}" in
  up)
    ensure_secret mysql_password >/dev/null; ensure_secret mysql_root_password >/dev/null
    ensure_secret grafana_reader_password >/dev/null
    if [ "$(mode)" = docker ]; then
      log "starting Kafka + MySQL with Docker"
      compose up -d
      wait_for "Kafka" 120 "$(venv_python)" -m errorcount.tools.kafka_admin ready || die "Kafka (docker) not ready in 120 s: docker compose logs kafka."
      wait_for "MySQL" 180 port_open 127.0.0.1 "$MYSQL_PORT" || die "MySQL (docker) not ready in 180 s: docker compose logs mysql."
    else
      "$ROOT/scripts/db.sh" start
      "$ROOT/scripts/kafka.sh" start
    fi
    ;;
  down)  # whichever runs: the native servers, and the compose stack where an engine answers
    "$ROOT/scripts/kafka.sh" stop; "$ROOT/scripts/db.sh" stop
    if [ "${STACK:-auto}" != native ] && engine_answers; then compose down; fi
    ;;
  remove-volumes)  # make clean: the compose volumes go with the secrets their data was made with
    if engine_answers; then compose down -v && log "compose stack and its volumes removed"
    else log "no Docker engine answers: no compose volumes to remove"; fi
    ;;
  status)
    if [ "$(mode)" = docker ]; then compose ps; else
      "$ROOT/scripts/kafka.sh" status || true; "$ROOT/scripts/db.sh" status || true
    fi
    ;;
  schema)
    if [ "$(mode)" = docker ]; then admin_sql < "$ROOT/sql/schema.sql" && counts_table_sql | admin_sql && grants_sql | admin_sql && grafana_reader_sql | admin_sql && log "schema and grants applied"
    else "$ROOT/scripts/db.sh" schema; fi
    ;;
  compose-check)
    command -v docker-compose >/dev/null || docker compose version >/dev/null 2>&1 || {
      die "docker-compose is missing: run 'make setup' (or sudo apt-get install docker-compose)."
    }
    ensure_secret mysql_password >/dev/null; ensure_secret mysql_root_password >/dev/null
    ensure_secret grafana_reader_password >/dev/null
    compose -f "$ROOT/docker-compose.yml" config -q && log "docker-compose.yml is valid"
    ;;
  mode) mode ;;
  *) die "usage: stack.sh up|down|status|schema|compose-check|remove-volumes|mode" ;;
esac
