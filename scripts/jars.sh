#!/usr/bin/env bash
# Resolves jars from Maven Central once into .local/jars (git-ignored; ~/.m2 speeds reruns):
#   jars.sh spark   -> Spark's Kafka connector matching the installed pyspark; prints the jar list
#   jars.sh yarn    -> Hadoop's MiniYARNCluster matching the Hadoop client in pyspark (make yarn-test)
#   jars.sh kafka   -> a Kafka broker (KAFKA_VERSION from .env) with its tools and a log4j2 backend
#   jars.sh otlp-bench -> protobuf-java and opentelemetry-proto, for make bench (o) alone; prints the directory
source "$(dirname "$0")/lib.sh"

resolve() {  # resolve POM OUTDIR -D...
  local pom=$1 out=$2; shift 2
  # The stamp names the POM's content and the arguments: an edited POM resolves again.
  local stamp; stamp=$(cat "$pom" <(printf '%s\n' "$@") | sha256sum | cut -c1-16)
  [ "$(cat "$out/.complete" 2>/dev/null)" = "$stamp" ] && return 0
  log "resolving $(basename "$pom" .xml) jars into $out (first run, or after its POM changed)"
  rm -rf "$out.tmp"
  if ! maven -f "$pom" "$@" -Dscala.binary.version="$SCALA_BINARY_VERSION" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$out.tmp"; then
    die "Maven could not resolve $(basename "$pom"): check access to Maven Central (or MAVEN_SETTINGS)."
  fi
  rm -rf "$out"; mv "$out.tmp" "$out"; echo "$stamp" > "$out/.complete"
}

case "${1:-}" in
  spark)
    version=$(spark_version)
    out="$LOCAL/jars/spark-kafka-$version"
    resolve "$ROOT/scripts/maven/spark-kafka.xml" "$out" -Dspark.version="$version"
    # Keep only what pyspark does not ship already: two copies of a library on one classpath
    # is how version conflicts start.
    pyspark_jars="$(pyspark_home)/jars"
    jars=()
    for jar in "$out"/*.jar; do
      name=$(basename "$jar" | sed -E 's/-[0-9][^-]*(-[A-Za-z0-9]+)?\.jar$//')
      compgen -G "$pyspark_jars/$name-[0-9]*.jar" >/dev/null || jars+=("$jar")
    done
    (IFS=,; printf '%s\n' "${jars[*]}")
    ;;
  kafka)
    resolve "$ROOT/scripts/maven/kafka-broker.xml" "$LOCAL/jars/kafka-$KAFKA_VERSION" -Dkafka.version="$KAFKA_VERSION"
    printf '%s\n' "$LOCAL/jars/kafka-$KAFKA_VERSION"
    ;;
  otlp-bench)
    resolve "$ROOT/scripts/maven/otlp-bench.xml" "$LOCAL/jars/otlp-bench"
    printf '%s\n' "$LOCAL/jars/otlp-bench"
    ;;
  yarn)
    api=$(compgen -G "$(pyspark_home)/jars/hadoop-client-api-*.jar" | head -n 1) ||
      die "pyspark ships no hadoop-client-api jar: is .venv complete? Run 'make venv'."
    version=$(basename "$api" .jar); version=${version#hadoop-client-api-}
    out="$LOCAL/jars/yarn-minicluster-$version"
    resolve "$ROOT/scripts/maven/yarn-minicluster.xml" "$out" -Dhadoop.version="$version"
    printf '%s\n' "$out"
    ;;
  *) die "usage: jars.sh spark|yarn|kafka|otlp-bench" ;;
esac
