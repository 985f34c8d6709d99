#!/usr/bin/env bash
# Local entry points (used by make run / topic / produce):
#   run.sh job [--driver SCRIPT] [--no-topic] [FLAGS...]
#                           spark-submit the streaming job in the foreground (local[*] by default);
#                           FLAGS are the job's (--config FILE); --driver SCRIPT runs another driver
#                           script than errorcount/main.py (the bench's variants); --no-topic does not
#                           create KAFKA_TOPIC's topics first (tests whose point is a missing topic)
#   run.sh recount [FLAGS...]
#                           spark-submit a recount of FROM..TO (errorcount/recount/main.py) under the
#                           job's settings, in the foreground; DRY_RUN=1 writes nothing
#   run.sh topic            create KAFKA_TOPIC with TOPIC_PARTITIONS partitions if missing
#   run.sh produce          write LINES sample records of FORMAT (app, access, json, otlp) to KAFKA_TOPIC
# Settings come from conf/errorcount.conf (CONFIG=... to change), then the environment.

# bash cannot trap a signal that was ignored when it started (a script's background job starts with
# SIGINT ignored; some supervisors start their children so): this wrapper would not hear a stop.
# It starts again with SIGINT and SIGTERM at their defaults (GNU env's --default-signal).
if [ -n "$(trap -p INT)$(trap -p TERM)" ] && [ -z "${ERRORCOUNT_STOP_SIGNALS_RESET:-}" ] \
   && env --default-signal=INT true 2>/dev/null; then
  ERRORCOUNT_STOP_SIGNALS_RESET=1 exec env --default-signal=INT,TERM "$BASH" "$0" "$@"
fi
source "$(dirname "$0")/lib.sh"

CONFIG=${CONFIG:-$ROOT/conf/errorcount.conf}
export KAFKA_BOOTSTRAP_SERVERS; KAFKA_BOOTSTRAP_SERVERS=$(job_setting KAFKA_BOOTSTRAP_SERVERS)
export KAFKA_TOPIC; KAFKA_TOPIC=$(job_setting KAFKA_TOPIC)
PY=$(venv_python)

# The local stack is started only when the job is configured for it and it is not running.
LOCAL_STACK=0
ensure_local_stack() {
  local mysql_host; mysql_host=$(job_setting MYSQL_HOST)
  case "$KAFKA_BOOTSTRAP_SERVERS|$mysql_host" in
    "127.0.0.1:$KAFKA_PORT|127.0.0.1"|"localhost:$KAFKA_PORT|localhost"|"127.0.0.1:$KAFKA_PORT|localhost"|"localhost:$KAFKA_PORT|127.0.0.1")
      if ! port_open 127.0.0.1 "$KAFKA_PORT" || ! port_open 127.0.0.1 "$MYSQL_PORT"; then
        "$ROOT/scripts/stack.sh" up
      fi
      # The local stack's generated password, unless the caller chose one.
      if [ -z "${MYSQL_PASSWORD:-}" ] && [ -z "$(job_setting MYSQL_PASSWORD_FILE)" ]; then
        export MYSQL_PASSWORD_FILE="$SECRETS/mysql_password"
      fi
      LOCAL_STACK=1
      ;;
  esac
}

# The compose stack's Prometheus scrapes the driver at host.docker.internal:9108 (conf/prometheus/):
# with that stack up and METRICS_PORT set neither in the environment nor in the config file, the
# job serves its metrics there. A container reaches the host through the Docker bridge, not its
# loopback, hence METRICS_HOST 0.0.0.0.
serve_metrics_to_compose() {
  [ -z "${METRICS_PORT+set}" ] && [ "$(job_setting METRICS_PORT)" = 0 ] || return 0
  [ "$("$ROOT/scripts/stack.sh" mode)" = docker ] || return 0
  export METRICS_PORT=9108 METRICS_HOST=${METRICS_HOST:-0.0.0.0}
  log "the compose stack's Prometheus scrapes this host's port 9108: serving the job's metrics on $METRICS_HOST:9108 (METRICS_PORT in the environment chooses, 0 turns it off)"
}

create_topic() {  # each topic KAFKA_TOPIC lists
  local names topic; IFS=, read -r -a names <<< "$KAFKA_TOPIC"
  for topic in "${names[@]}"; do
    "$PY" -m errorcount.tools.kafka_admin create-topic "${topic// /}" "${TOPIC_PARTITIONS:-3}"
  done
}

run_job() {
  local main=$ROOT/errorcount/main.py create=1
  while [ $# -gt 0 ]; do
    case "$1" in
      --driver) [ $# -ge 2 ] || die "--driver needs a driver script"; main=$2; shift 2 ;;
      --no-topic) create=0; shift ;;
      *) break ;;
    esac
  done
  # A stop request before spark-submit runs ends the wrapper cleanly: nothing has started.
  trap 'log "stop requested before the job started"; exit 0' INT TERM
  ensure_local_stack
  [ "$LOCAL_STACK" = 0 ] || serve_metrics_to_compose
  [ "$create" = 0 ] || create_topic >&2
  local jars; jars=$("$ROOT/scripts/jars.sh" spark)
  local classifier="$LOCAL/java/errorcount-classify.jar"  # the log-line contract (java/), make java
  [ -f "$classifier" ] || die "$classifier is missing: run 'make java' (make run builds it)."
  jars="$jars,$classifier"
  # Spark's files in conf/ are named by path, and SPARK_CONF_DIR (which spark-submit puts first
  # on the driver JVM's classpath) is an empty directory: the JVM maps a class-data archive
  # (-XX:SharedArchiveFile in SPARK_SUBMIT_OPTS, docs/testing.md) only for a classpath without a
  # non-empty directory. The settings read are the same either way.
  local conf_dir="$LOCAL/spark-conf"; mkdir -p "$conf_dir"
  export SPARK_CONF_DIR="$conf_dir" LOG4J_CONFIGURATION_FILE="$ROOT/conf/log4j2.properties"
  export PYSPARK_PYTHON="$PY" PYSPARK_DRIVER_PYTHON="$PY"
  export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
  export SPARK_LOCAL_IP=${SPARK_LOCAL_IP:-127.0.0.1}  # local mode: no need to look for a LAN address
  # The JIT compiles a method once it has run 5 times as often as the JVM's default asks: in local
  # mode the tasks and the JIT share the driver's cores, and with the default C2 compiled for about
  # as long as the tasks ran through a catch-up (Spark's planning, Kafka's client, code that runs
  # once a batch). Measured in catch-ups of 5 000 000 records on 2 cores (docs/performance.md,
  # "The JIT on two cores"): 10-20 % less CPU, the same tiny-batch cycle. First in SPARK_SUBMIT_OPTS,
  # so a caller's own -XX:CompileThresholdScaling there wins (the tests' drivers set 1).
  export SPARK_SUBMIT_OPTS="-XX:CompileThresholdScaling=5${SPARK_SUBMIT_OPTS:+ $SPARK_SUBMIT_OPTS}"
  # SPARK_SUBMIT_EXTRA: more spark-submit options, e.g. "--conf spark.ui.port=4050" (split as a shell would).
  local extra; spark_submit_extra extra
  local submit=("$VENV/bin/spark-submit" --master "${SPARK_MASTER:-local[*]}" --driver-memory "${DRIVER_MEMORY:-2g}"
                --properties-file "$ROOT/conf/spark-defaults.conf" --conf "spark.metrics.conf=$ROOT/conf/metrics.properties"
                --jars "$jars" "${extra[@]}" "$main" --config "$CONFIG" "$@")
  # Only the Python driver decides how to stop (at a batch boundary; a second request exits at
  # once): spark-submit's JVM starts with SIGTERM and SIGINT ignored (both set here: bash leaves
  # a ( ... ) & subshell's SIGINT at its default), so a signal to the whole process group or cgroup
  # (systemd's default stop, timeout(1), kill -- -PGID) cannot stop Spark under the batch; it ends
  # when the driver does.
  # A terminal's Ctrl-C still goes to the wrapper only: the JVM runs in its own session. Non-
  # interactive callers (tests) keep one process group, so SIGKILL to it takes everything down.
  # The Python driver writes its pid to this file as it starts (errorcount/driver_path.py): a stop
  # then knows whether Spark is still starting (no driver yet) or ending (the driver has exited).
  # A temporary file named by this wrapper's pid: the files of wrappers that are gone (killed, so
  # they could not remove theirs) are removed here.
  local stale owner
  for stale in "${TMPDIR:-/tmp}"/errorcount-driver.*.*; do
    owner=${stale##*/errorcount-driver.}; owner=${owner%%.*}
    if [[ "$owner" =~ ^[0-9]+$ ]] && ! kill -0 "$owner" 2>/dev/null; then rm -f "$stale" 2>/dev/null || true; fi
  done
  started=$(mktemp -t "errorcount-driver.$$.XXXXXX"); export ERRORCOUNT_DRIVER_PID_FILE="$started"
  if [ -t 0 ]; then (trap '' INT TERM; exec setsid "${submit[@]}") & else (trap '' INT TERM; exec "${submit[@]}") & fi
  local rc=0 status
  spark=$! ending=0 last_stop=0 trapped=0
  exec {err}>&2  # the wrapper's stderr, for a trap that runs while wait's is silenced below
  trap 'forward INT USR1' INT
  trap 'forward TERM USR2' TERM
  # A closed terminal (SIGHUP) stops the job as SIGTERM does: the JVM and the driver, in a session of
  # their own, would otherwise count on unseen, their output going nowhere.
  trap 'forward TERM USR2' HUP
  while :; do
    trapped=0
    { wait "$spark"; } 2>/dev/null && rc=0 || rc=$?  # no "Killed" job notice: the log says why
    kill -0 "$spark" 2>/dev/null || break
  done
  # A stop's trap interrupts `wait` (status 128 + the signal, not the job's), and bash may reap
  # spark-submit while that trap runs (a stop that kills it): one more wait then returns the status
  # bash kept; 127 there means the interrupted wait's status was already the job's own.
  if [ "$trapped" = 1 ] && [ "$rc" -gt 128 ]; then
    { wait "$spark"; } 2>/dev/null && status=0 || status=$?
    [ "$status" = 127 ] || rc=$status
  fi
  rm -f "$started"
  log "the job exited $rc (README.md, 'Exit codes')"
  exit "$rc"
}

# A stop signal's trap (SIGINT forward INT USR1, SIGTERM and SIGHUP forward TERM USR2), on run_job's
# globals: spark (spark-submit's pid), started (the driver's pid file), ending, last_stop, err, and
# trapped (set: the wait it interrupted returned no exit code of the job's).
# The driver gets the signal the wrapper got as its forwarded copy (SIGINT as SIGUSR1, SIGTERM as
# SIGUSR2: errorcount/driver_path.py), so it tells the copy from the same signal sent to the
# whole group, which reaches it directly too, and its log names the signal. Before the driver
# runs (Spark starting) nothing is in flight that a stop must wait for: spark-submit is killed
# (exit 137). After it exited, Spark is ending on its own with the driver's exit code, which a
# stop must not replace: only a second one kills it.
# One stop often arrives as several copies (a signal to the whole group reaches this wrapper, and
# make passes SIGTERM on to its recipe once more): a stop signal less than a second after the
# previous one is the same request, not passed on again (the driver tells copies from requests
# the same way: errorcount/main.py StopRequests).
# A copy may arrive while this runs, and bash then runs the trap again inside it: so no locals
# (bash loses track of a nested trap's function context), no child processes (no trap waits on
# one), and an explicit status (a bare `return` in a trap returns the status from before the trap,
# 143 after `wait`, which set -e takes for a failure that ends the wrapper).
forward() {
  trapped=1
  stop_at=${EPOCHREALTIME/[.,]/}  # microseconds; the radix character follows the locale
  if (( stop_at - last_stop < 1000000 )); then
    last_stop=$stop_at
    log "SIG$1 again within a second: the same stop request" 2>&"$err" || true
    return 0
  fi
  last_stop=$stop_at driver=""
  [ ! -s "$started" ] || read -r driver < "$started" || true
  if [ -n "$driver" ] && child_of "$driver" "$spark"; then
    kill "-$2" "$driver" 2>/dev/null || true
  elif ! kill -0 "$spark" 2>/dev/null; then
    :
  elif [ -z "$driver" ]; then
    log "SIG$1 before the Python driver started (Spark starting): killing spark-submit" 2>&"$err" || true
    kill -KILL "$spark" 2>/dev/null || true
  elif [ "$ending" = 0 ]; then
    ending=1
    log "SIG$1 after the Python driver exited: Spark is ending with its exit code (another stop kills it)" 2>&"$err" || true
  else
    log "SIG$1 again while Spark ends after the driver: killing spark-submit" 2>&"$err" || true
    kill -KILL "$spark" 2>/dev/null || true
  fi
  return 0
}

child_of() {  # child_of PID PARENT: PID runs with PARENT as its parent (read from /proc: no child process)
  stat=""
  { read -r stat < "/proc/$1/stat"; } 2>/dev/null || return 1
  set -- "$2" ${stat##*) }  # the fields after the command's name: state, parent pid, ...
  [ "${3:-}" = "$1" ]
}

case "${1:-}" in
  job) shift; run_job "$@" ;;
  recount) shift; run_job --driver "$ROOT/errorcount/recount/main.py" --no-topic "$@" ;;
  topic) ensure_local_stack; create_topic ;;
  produce) ensure_local_stack; create_topic >&2; "$PY" -m errorcount.tools.produce --topic "$KAFKA_TOPIC" --lines "${LINES:-10000}" --format "${FORMAT:-app}" ;;
  *) die "usage: run.sh job|recount|topic|produce" ;;
esac
