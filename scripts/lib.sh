# Shared helpers for scripts/*.sh: paths, pinned versions, secrets and wait loops.
# Sourced, never run. Every failure message says what happened and what to do next.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Debian keeps mariadbd, ldconfig and service in sbin, which a normal user's PATH lacks.
PATH="$PATH:/usr/sbin:/sbin"
LOCAL="$ROOT/.local"
SECRETS="$LOCAL/secrets"
VENV="$ROOT/.venv"

log() { printf '[%s] %s\n' "${0##*/}" "$*" >&2; }  # no child process: it also runs in traps
die() { printf '[%s] ERROR: %s\n' "$(basename "$0")" "$*" >&2; exit 1; }
# stale BINARY SOURCE: the binary is missing or older than a file of SOURCE (a test: use it in `if`;
# an assignment of find's output would end a script under set -e and pipefail while BINARY is missing).
stale() { [ ! -x "$1" ] || [ -n "$(find "$2" -type f -newer "$1" | head -1)" ]; }

# spark_submit_extra NAME: SPARK_SUBMIT_EXTRA (more spark-submit options) split into the array NAME
# as a shell splits words, quotes and backslashes honoured and nothing expanded or run (xargs does
# the splitting): "--conf 'spark.driver.extraJavaOptions=-Xss4m -XX:+UseG1GC'" is two words, where
# splitting at blanks made three. An unmatched quote is a config error (exit 2); the text is not
# shown, as options may carry a secret (spark.hadoop.*.secret.key).
spark_submit_extra() {
  local -n into=$1
  local text=${SPARK_SUBMIT_EXTRA:-}
  into=()
  if ! printf '%s' "$text" | xargs true 2>/dev/null; then
    printf '[%s] ERROR: config error: SPARK_SUBMIT_EXTRA has an unmatched quote (its text is not shown: options may hold a secret): quote each value with blanks whole, e.g. %s, then retry.\n' \
      "${0##*/}" "--conf 'spark.driver.extraJavaOptions=-Xss4m -XX:+UseG1GC'" >&2
    exit 2
  fi
  mapfile -d '' -t into < <(printf '%s' "$text" | xargs -r printf '%s\0')
}

# wait_for DESCRIPTION SECONDS COMMAND...: polls COMMAND every 0.5 s until it succeeds, saying
# what it waits for (and again every 15 s).
wait_for() {
  local what=$1 seconds=$2; shift 2
  local deadline=$((SECONDS + seconds)) next=$((SECONDS + 15))
  log "waiting for $what (up to $seconds s)"
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -lt "$deadline" ] || return 1
    [ "$SECONDS" -lt "$next" ] || { log "still waiting for $what ($((deadline - SECONDS)) s left)"; next=$((SECONDS + 15)); }
    sleep 0.5
  done
  log "$what is ready"
}

# as_root COMMAND...: runs it as root: directly when root, else through sudo (which may ask).
as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

# apt_install PACKAGE...: system packages, once (root, or sudo with a prompt that says why).
# Without recommended packages (docker-compose would bring a container engine), with apt's
# progress: a line per package fetched, with its size. Concurrent setups of a fresh checkout
# (several `make run`s at once) take turns on a lock of their own: apt-get refuses to run beside
# another ("Could not get lock"); dpkg's own lock, held by anything else (an unattended upgrade),
# is waited for by apt itself (DPkg::Lock::Timeout). A second installer finds the packages there.
APT_LOCK_WAIT_S=900
apt_install() {
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || die "$* missing, and this is neither root nor has sudo: as root, run apt-get install --no-install-recommends $*, then retry."
    log "installing $* with sudo apt-get (system packages only; everything else stays in this checkout and runs as $(id -un)); sudo may ask for your password"
  else
    log "installing $* with apt-get"
  fi
  local lock="${TMPDIR:-/tmp}/errorcount-apt-$(id -u).lock" wait="-o DPkg::Lock::Timeout=$APT_LOCK_WAIT_S"
  {
    flock -w "$APT_LOCK_WAIT_S" 9 \
      || die "another install of this project's system packages has held $lock for $APT_LOCK_WAIT_S s: let it finish (ps -ef | grep apt-get), then retry."
    # shellcheck disable=SC2086  # $wait is two words on purpose
    { as_root apt-get $wait update -q && as_root env DEBIAN_FRONTEND=noninteractive apt-get $wait install -y -q --no-install-recommends "$@"; } >&2 \
      || die "apt-get install $* failed (see above): install them by hand (apt-get install --no-install-recommends $*), then retry."
  } 9>>"$lock"
}

# maven ARGS...: mvn in batch mode with the project's settings (MAVEN_SETTINGS), to stderr: a
# line per artifact it fetches (with its size once fetched) and any error, not Maven's build chatter.
maven() {
  command -v mvn >/dev/null || die "Maven (mvn) is not installed: run 'make setup' (or apt-get install maven), then retry."
  mvn -B -s "${MAVEN_SETTINGS:-$ROOT/scripts/maven/settings.xml}" "$@" 2>&1 \
    | { grep --line-buffered -E 'Download(ing|ed) from|ERROR|FAILURE|Exception|Error:' || true; } \
    | sed -u -e 's/^\[INFO\] /  /' >&2
}

# has_lib NAME_REGEX: the dynamic linker knows a library of that name (a grep pattern, e.g. 'libnuma\.so\.1').
# The cache is read whole before grep looks: piped into grep -q, ldconfig died of SIGPIPE whenever
# grep had its answer before ldconfig had written all, and under pipefail that read as "missing"
# (1 call in 200 here; concurrent setups then ran apt-get, and one failed on apt's lock).
has_lib() { local cache; cache=$(ldconfig -p 2>/dev/null) || true; grep -q "$1 " <<< "$cache"; }

port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# A random secret in a 0600 file, created once; the file path is what gets passed around.
ensure_secret() {
  local file="$SECRETS/$1"
  mkdir -p "$SECRETS"; chmod 700 "$SECRETS"
  if [ ! -s "$file" ]; then
    (umask 077; od -An -N16 -tx1 /dev/urandom | tr -d ' \n' > "$file")
  fi
  chmod 600 "$file"
  printf '%s' "$file"
}

# job_setting KEY: the job's effective setting (environment > $CONFIG > built-in default) when
# this file was sourced, resolved by the job's own code (errorcount/config/settings.py) in the one
# Python call below; a setting that is not valid ends the script with the job's own message.
declare -A JOB_SETTINGS=() INVALID_SETTINGS=()
job_setting() {
  [ -z "${INVALID_SETTINGS[$1]+set}" ] || die "config error: ${INVALID_SETTINGS[$1]} (fix it in the environment or $CONFIG_SHOWN)"
  [ -n "${JOB_SETTINGS[$1]+set}" ] || die "job_setting $1: no such setting (or a secret, which scripts never read)"
  printf '%s\n' "${JOB_SETTINGS[$1]}"
}

# Where pyspark is installed, and its version, without importing it (~0.15 s each time; a
# driver's start asks both).
pyspark_home() { "$(venv_python)" -c 'import importlib.util as u; print(u.find_spec("pyspark").submodule_search_locations[0])'; }

venv_python() {
  [ -x "$VENV/bin/python" ] || die "no virtualenv at $VENV: run 'make venv' first."
  printf '%s' "$VENV/bin/python"
}

# One Python call (errorcount/tools/localenv.py, the one reader of .env): the pinned versions and
# ports of .env and the SQL server's port, database and user from the job's settings, exported (the
# caller's environment wins), and every non-secret job setting for job_setting. Its NUL-ended
# records are assigned as data, never evaluated. (scripts/setup.sh runs before the virtualenv
# exists and sets LIB_SETTINGS=0.)
load_settings() {
  local records record kind key value
  records=$(mktemp); CONFIG_SHOWN=${CONFIG:-$ROOT/conf/errorcount.conf}
  "$(venv_python)" -m errorcount.tools.localenv --shell > "$records" \
    || { rm -f "$records"; die "cannot read .env and $CONFIG_SHOWN (see above)."; }
  while IFS= read -r -d '' record; do
    kind=${record%% *}; record=${record#* }; key=${record%%=*}; value=${record#*=}
    [[ $key =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
    case "$kind" in
      stack) export "$key=$value" ;;
      setting) JOB_SETTINGS[$key]=$value ;;
      invalid) INVALID_SETTINGS[$key]=$value ;;
    esac
  done < "$records"
  rm -f "$records"
}
if [ "${LIB_SETTINGS:-1}" = 1 ]; then
  load_settings
fi

spark_version() { "$(venv_python)" -c 'import importlib.metadata as m; print(m.version("pyspark"))'; }

# The sql/ files with this stack's names put in (scripts/sql-template.sh): sql/counts_table.sql
# for a COUNTS_TABLE of its own (nothing for the default error_log), sql/grants.sql, and
# sql/grafana_reader.sql with the reader's secret password.
source "$ROOT/scripts/sql-template.sh"
counts_table_sql() { [ "$COUNTS_TABLE" = error_log ] || sql_template "$ROOT/sql/counts_table.sql"; }
grants_sql() { sql_template "$ROOT/sql/grants.sql"; }
grafana_reader_sql() {
  local password; password=$(cat "$(ensure_secret grafana_reader_password)")
  READER_PASSWORD=$password sql_template "$ROOT/sql/grafana_reader.sql"
}
