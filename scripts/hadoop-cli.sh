#!/usr/bin/env bash
# Hadoop's command-line clients, for hosts without a Hadoop installation:
#   hadoop-cli.sh yarn application -list | -status ID | -kill ID ...   (as `yarn application ...`)
#   hadoop-cli.sh yarn applicationattempt -list ID                      (as `yarn applicationattempt ...`)
#   hadoop-cli.sh fs -touchz PATH | -rm -f PATH | -test -e PATH ...    (as `hadoop fs ...`)
# Uses the real `yarn`/`hadoop` commands when they are on PATH, else the same client classes from
# the Hadoop client jars shipped in pyspark. Needs HADOOP_CONF_DIR (or YARN_CONF_DIR).
source "$(dirname "$0")/lib.sh"

bundled() {  # bundled MAINCLASS ARGS...
  local conf=${HADOOP_CONF_DIR:-${YARN_CONF_DIR:-}}
  [ -n "$conf" ] || die "HADOOP_CONF_DIR is not set: point it at the cluster's client configuration (yarn-site.xml)."
  # Quiet client: warnings and errors only, on stderr (the job's own log4j2 settings).
  exec java -cp "$conf:$(pyspark_home)/jars/*" -Dlog4j2.configurationFile="$ROOT/conf/log4j2.properties" "$@"
}

case "${1:-}" in
  yarn)
    shift
    if command -v yarn >/dev/null; then exec yarn "$@"; fi
    bundled org.apache.hadoop.yarn.client.cli.ApplicationCLI "$@"
    ;;
  fs)
    shift
    if command -v hadoop >/dev/null; then exec hadoop fs "$@"; fi
    bundled org.apache.hadoop.fs.FsShell "$@"
    ;;
  *) die "usage: hadoop-cli.sh yarn ARGS... | fs ARGS..." ;;
esac
