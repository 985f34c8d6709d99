#!/usr/bin/env bash
# make fresh-check: a newcomer's first hour on a plain Debian 12 host, proved in a clean root file
# system. debootstrap (from Debian's repository) makes a minimal Debian 12 with only git, make and
# sudo; a normal user there, allowed sudo, clones this checkout's HEAD and runs, as the README says:
#   make run    must set everything up by itself (system packages through sudo, the virtualenv,
#               jars, Kafka, MariaDB as that user), start the job and stop cleanly (stop marker)
#   make test   must pass
# It runs in its own mount and PID namespaces (unshare), bash as their init: what it mounts and
# starts ends with it.
# The host's network is shared (apt, PyPI and Maven Central are reached from inside), so the
# stack's ports (9092, 9093, 3306) must be free: `make down` first. Root (or sudo) is needed for
# debootstrap and chroot. Not part of CI; docs/testing.md says what it showed.
#   FRESH_DIR      where the root file system goes (default /var/tmp/errorcount-fresh; wiped first)
#   DEBIAN_MIRROR  the mirror debootstrap reads (default http://deb.debian.org/debian)
#   FRESH_TARGETS  what the newcomer runs after `make run` (default: test)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FRESH=${FRESH_DIR:-/var/tmp/errorcount-fresh}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
TARGETS=${FRESH_TARGETS:-test}
log() { printf '[fresh-check %s] %s\n' "$(date -u +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

[ "$(id -u)" = 0 ] || exec sudo --preserve-env=FRESH_DIR,DEBIAN_MIRROR,FRESH_TARGETS "$0" "$@"
for port in 9092 9093 3306; do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then die "port $port is in use: run 'make down' (and stop whatever else holds it) first."; fi
done
command -v debootstrap >/dev/null || { log "installing debootstrap"; apt-get install -y -q --no-install-recommends debootstrap >&2; }
[ -n "$(git -C "$ROOT" status --porcelain --untracked-files=no)" ] && log "WARNING: uncommitted changes are not checked: the newcomer clones HEAD ($(git -C "$ROOT" rev-parse --short HEAD))"

started=$SECONDS
log "making a minimal Debian 12 (bookworm) in $FRESH/root from $MIRROR"
rm -rf "$FRESH"; mkdir -p "$FRESH"
debootstrap --variant=minbase --include=git,make,sudo,ca-certificates bookworm "$FRESH/root" "$MIRROR" > "$FRESH/debootstrap.log" 2>&1 \
  || die "debootstrap failed: see $FRESH/debootstrap.log"
R="$FRESH/root"
cp /etc/resolv.conf /etc/hosts "$R/etc/"
# The host's own trust for the network it shares: extra CA certificates (a TLS-inspecting proxy's,
# say) and pip's certificate setting, as a newcomer's host on that network would have them.
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$R/usr/local/share/ca-certificates/"
  chroot "$R" update-ca-certificates >/dev/null 2>&1 || die "update-ca-certificates failed in $R"
  log "carried the host's extra CA certificates in: $(cd /usr/local/share/ca-certificates && echo *.crt)"
fi
[ ! -f /etc/pip.conf ] || cp /etc/pip.conf "$R/etc/pip.conf"
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\n' "$MIRROR" "$MIRROR" > "$R/etc/apt/sources.list"
chroot "$R" useradd --create-home --shell /bin/bash newcomer
echo 'newcomer ALL=(ALL) NOPASSWD: ALL' > "$R/etc/sudoers.d/newcomer"; chmod 440 "$R/etc/sudoers.d/newcomer"
git clone --quiet "$ROOT" "$R/home/newcomer/errorcount"
chroot "$R" chown -R newcomer:newcomer /home/newcomer/errorcount
log "root file system ready after $((SECONDS - started)) s: $(chroot "$R" dpkg-query -W | wc -l) packages"

# What the newcomer types, as the newcomer: make run until its query runs, a stop marker, exit 0;
# then make test. TZ is not UTC, as on most laptops.
cat > "$R/home/newcomer/first-hour.sh" <<'NEWCOMER'
set -uo pipefail
cd ~/errorcount
export TZ=America/Sao_Paulo STOP_MARKER=$HOME/stop-the-job
step() { printf '[newcomer %s] %s\n' "$(date -u +%H:%M:%S)" "$*"; }
step "make run"
make run > ~/make-run.log 2>&1 &
run=$!
for _ in $(seq 1 3600); do
  grep -q "query 1:" ~/make-run.log && break
  kill -0 "$run" 2>/dev/null || break
  sleep 1
done
grep -q "query 1:" ~/make-run.log || { step "make run did not start the job:"; tail -n 40 ~/make-run.log; exit 1; }
touch "$STOP_MARKER"
wait "$run"; rc=$?
rm -f "$STOP_MARKER"
step "make run exited $rc (log: ~/make-run.log)"; grep -E '^\[(setup|db|kafka|jars|stack|run)\.sh\]' ~/make-run.log | head -n 40
[ "$rc" = 0 ] || { tail -n 40 ~/make-run.log; exit 1; }
for target in "$@"; do
  step "make $target"
  make "$target" || { step "make $target failed"; make down; exit 1; }
done
make down
step "done"
NEWCOMER
log "as the user newcomer: make run, then make $TARGETS"
# shellcheck disable=SC2016,SC2086
unshare --mount --pid --fork --propagation private bash -ec '
  R=$1; shift
  mount -t proc proc "$R/proc"; mount -t sysfs sys "$R/sys"; mount --rbind /dev "$R/dev"
  mount -t tmpfs tmpfs "$R/dev/shm"
  # bash stays PID 1 of the namespace (no exec): it reaps the orphans (servers started with
  # setsid and then SIGKILLed by the tests) as init does on a real host; su would leave zombies.
  chroot "$R" su --login newcomer -c "bash ~/first-hour.sh $*"; rc=$?
  exit "$rc"
' fresh-check "$R" $TARGETS 2>&1 | tee "$FRESH/first-hour.log"
rc=${PIPESTATUS[0]}
log "newcomer's first hour: exit $rc after $((SECONDS - started)) s in all (log: $FRESH/first-hour.log)"
exit "$rc"
