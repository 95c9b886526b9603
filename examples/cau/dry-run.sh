#!/usr/bin/env bash
# Runs the CAU PreUpdateScript and PostUpdateScript of this folder with PowerShell 7 (`pwsh`)
# against the gate lab (examples/gate/lab.sh: the seed-1 host's recorded iDRAC and Windows
# output), the way CAU would around one node's update: pre passes; after the seed-1 update the
# post script throws (CAU would fail the node and stop); after a firmware-only update it
# passes and promotes.
#
# Usage: bash examples/cau/dry-run.sh [DRIFTGATE]   (needs pwsh on PATH)
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v pwsh >/dev/null || { echo "pwsh (PowerShell 7) is not on PATH" >&2; exit 2; }
source examples/gate/lab.sh
lab_start "${1:-target/debug/driftgate}"
export DRIFTGATE_REPO=$lab_store DRIFTGATE_COMMAND=$lab_bin
run_id_file=$lab_work/run-id
failures=0

ps() {
    local expected=$1
    shift
    echo "\$ pwsh -File $*"
    local code=0
    pwsh -NoProfile -NonInteractive -File "$@" -Node azl-node01 -RunIdFile "$run_id_file" || code=$?
    local outcome=$([ "$code" = 0 ] && echo passes || echo throws)
    echo "→ $outcome (expected $expected)"
    echo
    [ "$outcome" = "$expected" ] || failures=$((failures + 1))
}

ps passes examples/cau/driftgate-pre-update.ps1
lab_state post-update
ps throws examples/cau/driftgate-post-update.ps1

lab_state baseline
ps passes examples/cau/driftgate-pre-update.ps1
lab_state benign-update
ps passes examples/cau/driftgate-post-update.ps1

[ "$failures" -eq 0 ] || { echo "CAU dry run: $failures script(s) ended differently" >&2; exit 1; }
echo "CAU dry run: every script as expected"
