# Shared by submit-yarn.sh and stop-yarn.sh: finding this job's YARN application. Sourced, never run.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONFIG=${CONFIG:-$ROOT/conf/errorcount.conf}
PACKAGE=${PACKAGE:-$LOCAL/package}
LIVE_STATES=NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING

[ -n "${HADOOP_CONF_DIR:-${YARN_CONF_DIR:-}}" ] ||
  die "HADOOP_CONF_DIR is not set: point it at the cluster's client configuration (the directory with yarn-site.xml)."

yarn_cli() { "$ROOT/scripts/hadoop-cli.sh" yarn "$@"; }

# The application tag naming one job: stable across submissions, so operators (and these scripts)
# find the job by name. YARN lowercases tags and allows no commas; at most 100 characters.
app_tag() { printf 'errorcount-job-%s' "$1" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9._:\n-' '_' | cut -c1-100; }

# live_apps JOB_NAME: ids of this job's applications that are not finished. Fails loudly when
# YARN cannot be asked: "not running" must never be a guess.
live_apps() {
  local out
  out=$(yarn_cli application -list -appTags "$(app_tag "$1")" -appStates "$LIVE_STATES" 2>&1) ||
    die "cannot list YARN applications (is the ResourceManager named in HADOOP_CONF_DIR up?): $(tail -n 3 <<< "$out")"
  grep -oE '^application_[0-9]+_[0-9]+' <<< "$out" || true
}

# app_state ID: "State Final-State" of `yarn application -status`, e.g. "FINISHED SUCCEEDED".
app_state() {
  yarn_cli application -status "$1" 2>/dev/null |
    awk -F' : ' '{ gsub(/^[ \t]+/, "", $1) } $1 == "State" { s = $2 } $1 == "Final-State" { f = $2 } END { print s, f }'
}
