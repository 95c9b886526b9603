#!/usr/bin/env bash
# driftgate's main job on the shipped examples, offline: the gate of a firmware rollout over the
# seed-1 host's recorded iDRAC and Windows output (examples/gate/demo.sh: pre, the update,
# post blocking with the firmware that did it; then a firmware-only update that passes and
# promotes), then the nightly check of a simulated fleet of 12 BMCs (examples/fleet/demo.sh:
# bootstrap, one night with a drifted, a down and a hanging BMC, the same night as 3 shards
# merged), then `check` of each incident's snapshots. Every exit code is compared with the
# verdict it must give. Builds the binary first; needs cargo and a C compiler, which
# scripts/test-deps.sh --build installs from Debian's packages when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/test-deps.sh --build
cargo build --quiet --locked
bin=target/debug/driftgate
failures=0

run() {
    local expected=$1
    shift
    echo "\$ driftgate $*"
    local code=0
    "$bin" "$@" || code=$?
    echo "→ exit $code (expected $expected)"
    echo
    [ "$code" = "$expected" ] || failures=$((failures + 1))
}

echo "# The gate of a firmware rollout (examples/gate/demo.sh)"
bash examples/gate/demo.sh "$bin" || failures=$((failures + 1))
echo

echo "# The nightly check of a fleet (examples/fleet/demo.sh)"
bash examples/fleet/demo.sh "$bin" || failures=$((failures + 1))
echo

echo "## Seed 1: Azure Local, Broadcom RoCE, NIC DCBX reset by a firmware update"
run 0 check --snapshot examples/azure-local-dcbx/pre-update.json --baseline examples/azure-local-dcbx/baseline.json
run 1 check --snapshot examples/azure-local-dcbx/post-update.json --baseline examples/azure-local-dcbx/baseline.json
run 1 check --snapshot examples/azure-local-dcbx/post-update.json

echo "## Seed 1 captured from its recorded raw outputs (iDRAC mockup + Windows collector output)"
run 0 capture --host azl-node01 --source redfish=mockup:examples/azure-local-dcbx/recorded/post-update/bmc \
    --source windows=dir:examples/azure-local-dcbx/recorded/post-update/windows --out target/azl-node01-post-update.json
run 1 check --snapshot target/azl-node01-post-update.json --baseline examples/azure-local-dcbx/baseline.json --format markdown

echo "## Seed 2: ESXi 5.0, MSCS shared RDM on Round Robin"
run 1 check --snapshot examples/esxi-mscs-psp/current.json --baseline examples/esxi-mscs-psp/baseline.json

echo "## A firmware-only update must pass"
run 0 check --snapshot examples/benign-firmware-update/post-update.json --baseline examples/benign-firmware-update/baseline.json

echo "## Linux/Mellanox: the NIC firmware's LLDP agent came back after a firmware update"
run 1 check --snapshot examples/linux-mellanox-lldp/post-update.json --baseline examples/linux-mellanox-lldp/baseline.json

if [ "$failures" -ne 0 ]; then
    echo "examples: $failures verdict(s) differ from what they must be" >&2
    exit 1
fi
echo "examples: every verdict as expected"
