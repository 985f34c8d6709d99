#!/usr/bin/env bash
# A real single-node YARN for tests (make yarn-up / yarn-down / yarn-test): Hadoop's
# MiniYARNCluster (ResourceManager + one NodeManager in one JVM, no HDFS), from Maven Central jars
# matching the Hadoop client in pyspark. State and container logs in .local/yarn.
#   yarn-mini.sh up | down | status | conf-dir
# Its client configuration lands in .local/yarn/conf: HADOOP_CONF_DIR=$(scripts/yarn-mini.sh conf-dir).
source "$(dirname "$0")/lib.sh"

DIR="$LOCAL/yarn"
PID="$DIR/minicluster.pid"
CONF="$DIR/conf"
# Hadoop 3.x (the version pyspark ships) on Java 17 reflects into the JDK (Guice, Jersey): open what it needs.
OPENS=(--add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.lang.reflect=ALL-UNNAMED
       --add-opens=java.base/java.io=ALL-UNNAMED --add-opens=java.base/java.net=ALL-UNNAMED
       --add-opens=java.base/java.nio=ALL-UNNAMED --add-opens=java.base/java.util=ALL-UNNAMED
       --add-opens=java.base/java.util.concurrent=ALL-UNNAMED --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
       --add-opens=java.base/java.lang.invoke=ALL-UNNAMED)

up() {
  if pid_alive "$PID" && [ -f "$CONF/yarn-site.xml" ]; then log "YARN already running (pid $(cat "$PID"))"; return 0; fi
  command -v java >/dev/null || die "java is not installed: apt-get install openjdk-17-jre-headless."
  local jars; jars=$("$ROOT/scripts/jars.sh" yarn)
  # A fresh cluster each time: nothing in it outlives a restart anyway (no HDFS, no recovery).
  rm -rf "$CONF" "$DIR/target" "$DIR/staging"; mkdir -p "$DIR"
  cat > "$DIR/log4j.properties" <<'LOG'
log4j.rootLogger=INFO,file
log4j.appender.file=org.apache.log4j.RollingFileAppender
log4j.appender.file.File=${yarn.log.file}
log4j.appender.file.MaxFileSize=50MB
log4j.appender.file.MaxBackupIndex=2
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=%d{ISO8601} %p %c{1}: %m%n
LOG
  log "starting MiniYARNCluster (log: $DIR/minicluster.log)"
  # Its own session: a test's process-group kill must not take the cluster down with it.
  (cd "$DIR" && exec setsid java -Xmx768m "${OPENS[@]}" -Dyarn.log.file="$DIR/minicluster.log" \
      -Dlog4j.configuration="file:$DIR/log4j.properties" -cp "$jars/*" \
      "$ROOT/scripts/yarn/MiniYarn.java" "$DIR" "$CONF" >"$DIR/minicluster.out" 2>&1) &
  echo $! > "$PID"
  if ! wait_for "YARN (config in $CONF)" 180 test -f "$CONF/yarn-site.xml"; then
    tail -n 20 "$DIR/minicluster.out" >&2 || true
    down
    die "MiniYARNCluster did not come up in 180 s: see $DIR/minicluster.out and $DIR/minicluster.log."
  fi
}

down() {
  if pid_alive "$PID"; then
    kill "$(cat "$PID")" 2>/dev/null || true
    local deadline=$((SECONDS + 60))
    while pid_alive "$PID" && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
    pid_alive "$PID" && kill -9 "$(cat "$PID")" 2>/dev/null || true
    log "YARN stopped"
  fi
  # Containers run in their own sessions: none may outlive the cluster.
  pkill -9 -f "$DIR/.*/container_" 2>/dev/null || true
  rm -f "$PID" "$CONF/yarn-site.xml"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) if pid_alive "$PID"; then echo "YARN: running (pid $(cat "$PID")), HADOOP_CONF_DIR=$CONF"; else echo "YARN: stopped"; fi ;;
  conf-dir) printf '%s\n' "$CONF" ;;
  *) die "usage: yarn-mini.sh up|down|status|conf-dir" ;;
esac
