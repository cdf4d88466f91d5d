#!/usr/bin/env bash
# The whole suite (`make test`) with two CPU-burning processes beside it, as
# on a shared machine or a busy CI runner: it must stay green, and on a
# 2-core machine finish within 10 minutes.  The burners (and the run) die
# with this script however it ends: normal exit, Ctrl-C, kill.
#   tests/stress/run_loaded.sh            # make test, two burners
#   BURNERS=4 tests/stress/run_loaded.sh  # more load
#   tests/stress/run_loaded.sh check      # another make target
set -uo pipefail
set -m  # every background job in a process group of its own, killed whole below
cd "$(dirname "$0")/../.."

jobs_started=()
stop_all() {
    for pid in "${jobs_started[@]}"; do
        kill -TERM -- "-$pid" 2>/dev/null
    done
    for pid in "${jobs_started[@]}"; do
        wait "$pid" 2>/dev/null
    done
    jobs_started=()
}
trap stop_all EXIT
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM

burners=${BURNERS:-2}
for _ in $(seq "$burners"); do
    ( while :; do :; done ) &
    jobs_started+=("$!")
done

start=$(date +%s)
# in the background: `wait` lets the traps run at once; `time` gives the run's
# CPU (the suite's processes, not the burners), the figure load does not stretch
( TIMEFORMAT="run_loaded: %R s wall, %U s user + %S s system CPU for make ${1:-test}"
  time ${MAKE:-make} "${1:-test}" ) &
run=$!
jobs_started+=("$run")
wait "$run"
status=$?
echo "run_loaded: make ${1:-test} exited $status after $(( $(date +%s) - start )) s" \
     "with $burners CPU burners beside it"
exit "$status"
