#!/usr/bin/env bash
# Submits the packaged job (make package) to YARN in cluster mode: the driver runs in the
# ApplicationMaster and YARN restarts it (a new attempt) when its container dies.
#   submit-yarn.sh [JOB FLAGS...]        e.g. submit-yarn.sh --kafka-topic app-logs
#   submit-yarn.sh recount [JOB FLAGS...]  a recount of FROM..TO (environment; DRY_RUN=1 writes nothing)
#                                        under the job's settings, beside the running job (its output
#                                        is in the driver's log: yarn logs -applicationId ...)
# Inputs: HADOOP_CONF_DIR (the cluster's client config), CONFIG (job settings, default
# conf/errorcount.conf; the environment and flags win, as for make run), PACKAGE (default
# .local/package). Optional: YARN_JAVA_HOME (Java 17+ on the nodes, if Hadoop's own Java differs),
# SPARK_YARN_ARCHIVE or SPARK_YARN_JARS (Spark's jars already on the cluster, instead of uploading
# pyspark's 440 MB at each submission), SPARK_SUBMIT_EXTRA (more spark-submit options, split as a shell would: lib.sh).
# Secrets (MYSQL_PASSWORD or MYSQL_PASSWORD_FILE, KAFKA_OPT_* secrets) travel in a 0600 file
# through YARN's private staging directory: never in argv, the Spark UI or a log.
# Prints the application id last. Exit 2: configuration problem; 3: the job is already running.
source "$(dirname "$0")/yarn-lib.sh"

DRIVER=main.py; DRIVER_ARGS=()
if [ "${1:-}" = recount ]; then
  shift
  [ -n "${FROM:-}" ] && [ -n "${TO:-}" ] || die "submit-yarn.sh recount needs FROM and TO (YYYY-MM-DD HH:MM, UTC)."
  DRIVER=recount.py; DRIVER_ARGS=(--from "$FROM" --to "$TO")
  [ -z "${DRY_RUN:-}" ] || [ "$DRY_RUN" = 0 ] || DRIVER_ARGS+=(--dry-run)
fi

[ -f "$PACKAGE/MANIFEST.txt" ] || die "no package in $PACKAGE: run 'make package' first (or set PACKAGE)."
[ -f "$CONFIG" ] || die "config file $CONFIG not found: set CONFIG to the job's settings file."
if [ -n "${PYSPARK_DRIVER_PYTHON:-}" ]; then
  log "ignoring PYSPARK_DRIVER_PYTHON: in cluster mode the driver uses the packed environment"
fi
unset PYSPARK_DRIVER_PYTHON PYSPARK_PYTHON
export SPARK_HOME; SPARK_HOME=$(pyspark_home)  # spark-submit would look for it with the system python

STAGE=$(mktemp -d -t errorcount-submit.XXXXXX)  # 0700: holds the secrets file until it is uploaded
trap 'rm -rf "$STAGE"' EXIT

# The effective settings, validated here: a config error stops before YARN is involved.
settings=$("$(venv_python)" -m errorcount.tools.yarn_conf "$STAGE" --config "$CONFIG" "$@") || {
  rc=$?; log "the job's configuration is invalid (see above): fix it and submit again"; exit "$rc"; }
setting() { sed -n "/^$1 = /{s///p;q}" <<< "$settings"; }  # the first; no pipe whose writer head could cut off
job=$(setting JOB_NAME); marker=$(setting STOP_MARKER)

running=$([ "$DRIVER" = recount.py ] || live_apps "$job")
if [ -n "$running" ]; then
  log "job '$job' already runs on YARN as $(echo $running): stop it first (make stop-yarn), or use another JOB_NAME"
  exit 3
fi
if [ "$DRIVER" = main.py ] && [ -n "$marker" ] && "$ROOT/scripts/hadoop-cli.sh" fs -test -e "$marker" 2>/dev/null; then
  log "removing the stop marker $marker left by the last stop"
  "$ROOT/scripts/hadoop-cli.sh" fs -rm -f "$marker" >/dev/null || die "cannot remove the stop marker $marker: remove it by hand, then submit again."
fi

# Spark settings: the package's spark-defaults.conf, then its YARN settings, then this submission's.
mkdir -p "$STAGE/spark-conf"
{
  cat "$PACKAGE/conf/spark-defaults.conf" "$PACKAGE/conf/spark-yarn.conf"
  if [ "$DRIVER" = main.py ]; then echo "spark.yarn.tags errorcount,$(app_tag "$job")"
  else echo "spark.yarn.tags errorcount-recount"; echo "spark.yarn.maxAppAttempts 1"; fi
  if [ -n "${YARN_JAVA_HOME:-}" ]; then
    echo "spark.yarn.appMasterEnv.JAVA_HOME $YARN_JAVA_HOME"
    echo "spark.executorEnv.JAVA_HOME $YARN_JAVA_HOME"
  fi
  [ -z "${SPARK_YARN_ARCHIVE:-}" ] || echo "spark.yarn.archive $SPARK_YARN_ARCHIVE"
  [ -z "${SPARK_YARN_JARS:-}" ] || echo "spark.yarn.jars $SPARK_YARN_JARS"
} > "$STAGE/spark-conf/spark-defaults.conf"
# The submitting client logs as the local job does (conf/log4j2.properties: the YARN client's
# INFO lines report the application id).
cp "$PACKAGE/conf/log4j2.properties" "$STAGE/spark-conf/"

jars=$(compgen -G "$PACKAGE/jars/*.jar" | paste -sd, -)
extra=(); spark_submit_extra extra
what="job '$job'"; [ "$DRIVER" = main.py ] || what="a recount of job '$job' ($FROM to $TO)"
log "submitting $what to YARN (package: $(head -n 1 "$PACKAGE/MANIFEST.txt"))"
SPARK_CONF_DIR="$STAGE/spark-conf" "$VENV/bin/spark-submit" --master yarn --deploy-mode cluster \
  --name "errorcount-$job${DRIVER_ARGS[0]:+-recount}" \
  --py-files "$PACKAGE/errorcount-app.zip" \
  --archives "$PACKAGE/errorcount-env.tar.gz#environment" \
  --jars "$jars" \
  --files "$STAGE/errorcount.conf,$STAGE/errorcount-secrets,$PACKAGE/conf/log4j2-yarn.properties" \
  "${extra[@]}" \
  "$PACKAGE/$DRIVER" --config errorcount.conf "${DRIVER_ARGS[@]}" 2>&1 | tee "$STAGE/submit.log" >&2
[ "${PIPESTATUS[0]}" -eq 0 ] || die "spark-submit failed (see above): nothing was started."
app=$(grep -oE 'application_[0-9]+_[0-9]+' "$STAGE/submit.log" | tail -n 1)
[ -n "$app" ] || die "spark-submit did not report an application id (see above)."
if [ "$DRIVER" = main.py ]; then
  log "submitted: $app (tag $(app_tag "$job")); stop it with 'make stop-yarn' (stop marker) or 'yarn application -kill $app'"
else
  log "submitted: $app; its table and outcome are in the driver's log (yarn logs -applicationId $app); a kill leaves whole chunks swapped, run it again"
fi
echo "$app"
