#!/usr/bin/env bash
# The gate of a firmware rollout, offline (examples/gate/lab.sh serves the seed-1 host's
# recorded iDRAC and Windows collector output and switches them between states the way the
# update would). Run 1 is the seed-1 update: `gate post` blocks and names the NIC firmware
# that reset DCBX; `fix plan` names the Dell NIC attribute PATCH that restores IEEE DCBX,
# `fix apply` stages it, the reset applies it and `gate post` verifies and promotes it. Run 2
# is a firmware-only update: it passes and promotes.
#
# Usage: bash examples/gate/demo.sh [DRIFTGATE]   (default: target/debug/driftgate)
set -euo pipefail
cd "$(dirname "$0")/../.."
source examples/gate/lab.sh
lab_start "${1:-target/debug/driftgate}"
failures=0

step() {
    local expected=$1
    shift
    echo "\$ driftgate $*"
    local code=0
    "$lab_bin" --repo "$lab_store" "$@" || code=$?
    echo "→ exit $code (expected $expected)"
    echo
    [ "$code" = "$expected" ] || failures=$((failures + 1))
}

echo
echo "## Run 1: the seed-1 firmware update (NIC 229.0.166.0 → 229.1.123.0 resets DCBX)"
step 0 inventory check
step 0 gate pre --run CHG-1001 azl-node01
lab_state post-update
step 1 gate post --run CHG-1001 --promote >"$lab_work/post.txt" 2>&1
cat "$lab_work/post.txt"
if ! grep -q "229.0.166.0 → 229.1.123.0" "$lab_work/post.txt"; then
    echo "gate post did not name the NIC firmware that changed" >&2
    failures=$((failures + 1))
fi

echo "## Run 1, fixed: the plan, applied staged under the change ticket, the reset, verified by the gate"
step 0 fix plan --run CHG-1001
step 0 fix apply --run CHG-1001 --ticket CHG-1001 --yes
echo "# before the reset the fix is only pending: the gate still blocks"
step 1 gate post --run CHG-1001
step 0 fix apply --run CHG-1001 --ticket CHG-1001 --yes --reset
# After the reset the NIC negotiates IEEE DCBX with the OS again: the host's Windows collector
# output is that of a host whose DCBX is on (the benign update's).
echo "# azl-node01's OS after the reset: DCBX negotiated again"
rm -rf "$lab_host/windows" && cp -r "$lab_recorded/benign-update/windows" "$lab_host/"
step 0 gate post --run CHG-1001 --promote >"$lab_work/fixed.txt" 2>&1
cat "$lab_work/fixed.txt"
if ! grep -q "took effect" "$lab_work/fixed.txt"; then
    echo "gate post did not verify the fix" >&2
    failures=$((failures + 1))
fi

echo "## Run 2: a firmware-only update (DCBX left alone) passes and promotes"
lab_state baseline
step 0 gate pre --run CHG-1002 azl-node01
lab_state benign-update
step 0 gate post --run CHG-1002 --promote
echo "\$ git log -1 (the promote commit)"
git -C "$lab_store" log -1 --format='%h %s%n%n%b'

if [ "$failures" -ne 0 ]; then
    echo "gate demo: $failures step(s) ended differently than they must" >&2
    exit 1
fi
echo "gate demo: every step as expected"
