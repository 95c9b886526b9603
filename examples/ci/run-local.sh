#!/usr/bin/env bash
# Runs the CI workflows' nightly check (nightly-check.sh, the script both workflows call) on this
# machine, offline: `driftgate mockup serve` simulates 6 BMCs of the seed-1 host's recorded
# iDRAC in clusters of 3, a temporary store gets their baselines as an operator bootstraps one
# (a first `check --all --bootstrap`, then `baseline promote` of its snapshots), then the night
# comes and nightly-check.sh judges it from inside the store, as a runner does in its checkout.
# Prints the fleet summary and where each report went, and exits with driftgate's exit code.
#
# The night (--night): incomplete (default: BMC 1 took the NIC firmware update that resets DCBX
# and BMC 4 is down: exit 3), block (BMC 1 only: exit 1) or pass (every BMC as its baseline:
# exit 0).
#
# Usage: bash examples/ci/run-local.sh [--night incomplete|block|pass] [REPORTS_DIR]
#   REPORTS_DIR: default target/ci-local; DRIFTGATE: the binary (default target/debug/driftgate)
set -euo pipefail
cd "$(dirname "$0")/../.."
night=incomplete
if [ "${1:-}" = --night ]; then
    night=${2:?--night incomplete|block|pass}
    shift 2
fi
case $night in
    incomplete | block | pass) ;;
    *) echo "--night $night: one of incomplete, block, pass" >&2; exit 2 ;;
esac
mkdir -p "${1:-target/ci-local}"
reports=$(realpath "${1:-target/ci-local}")
bin=$(realpath "${DRIFTGATE:-target/debug/driftgate}")
script=$PWD/examples/ci/nightly-check.sh
recorded=$PWD/examples/azure-local-dcbx/recorded
work=$(mktemp -d)
store=$work/store
server=

stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# The simulator's account, in the variables its inventory names (a pipeline maps its secrets
# into the variables the real inventory names).
export DRIFTGATE_MOCKUP_USERNAME=root DRIFTGATE_MOCKUP_PASSWORD=lab-only

# serve ARGS…: (re)starts the 6 BMCs, rewriting the store's inventory.toml.
serve() {
    stop_server
    "$bin" --color never mockup serve "$recorded/baseline/bmc" --count 6 --listen 127.0.0.1:0 \
        --auth session --cluster-size 3 --write-inventory "$store/inventory.toml" "$@" \
        >"$work/serve.out" 2>"$work/serve.err" &
    server=$!
    for _ in $(seq 400); do
        grep -q '^serving ' "$work/serve.out" && return 0
        kill -0 "$server" 2>/dev/null || break
        sleep 0.05
    done
    echo "the fleet simulator did not start: $(cat "$work/serve.err")" >&2
    exit 2
}

"$bin" baseline init "$store" >/dev/null
serve
"$bin" --color never --repo "$store" check --all --bootstrap --quiet --out-dir "$work/bootstrap" >/dev/null
"$bin" --repo "$store" baseline promote --fleet sim "$work/bootstrap/snapshots/"*.json \
    -m "known-good fleet" >/dev/null
echo "# baselines of 6 simulated hosts promoted into $store"

case $night in
    incomplete) serve --bmc-state "1=$recorded/post-update/bmc" --bmc-fault 4:down ;;
    block) serve --bmc-state "1=$recorded/post-update/bmc" ;;
    pass) serve ;;
esac
echo "# the night ($night): nightly-check.sh in the store, reports into $reports"
echo
code=0
(cd "$store" && DRIFTGATE=$bin DRIFTGATE_REPORTS=$reports bash "$script" --host-timeout 30) || code=$?
exit "$code"
