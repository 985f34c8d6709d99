#!/usr/bin/env bash
# Stops the job running on YARN, found by its JOB_NAME's application tag.
#   stop-yarn.sh         creates the STOP_MARKER: the driver finishes and commits its in-flight
#                        batch, exits 0, YARN records SUCCEEDED and starts no other attempt. Waits
#                        for that (STOP_TIMEOUT seconds, default 600).
#   stop-yarn.sh --kill  yarn application -kill: immediate; an in-flight batch is rolled back and
#                        counted again by the next submission (nothing half-committed).
# JOB_NAME and STOP_MARKER come from the environment or CONFIG (default conf/errorcount.conf).
source "$(dirname "$0")/yarn-lib.sh"

job=$(job_setting JOB_NAME); marker=$(job_setting STOP_MARKER)
apps=$(live_apps "$job")
[ -n "$apps" ] || { log "job '$job' is not running on YARN: nothing to stop"; exit 0; }

if [ "${1:-}" = --kill ]; then
  for app in $apps; do yarn_cli application -kill "$app"; done
  exit 0
fi
[ -n "$marker" ] || die "STOP_MARKER is not set for job '$job': set it (conf) for the next submission; for now stop with 'stop-yarn.sh --kill'."
log "creating the stop marker $marker for job '$job' ($(echo $apps))"
"$ROOT/scripts/hadoop-cli.sh" fs -touchz "$marker" || die "cannot create the stop marker $marker: check the path and your access to it."
deadline=$((SECONDS + ${STOP_TIMEOUT:-600}))
for app in $apps; do
  while read -r state final < <(app_state "$app"); [ "$state" != FINISHED ] && [ "$state" != FAILED ] && [ "$state" != KILLED ]; do
    [ "$SECONDS" -lt "$deadline" ] || die "$app has not stopped within ${STOP_TIMEOUT:-600} s: look at its driver log; 'stop-yarn.sh --kill' stops it at once."
    sleep 2
  done
  log "$app: $state / $final"
done
