#!/usr/bin/env bash
# Runs examples/ansible/nightly-check.yml offline: `driftgate mockup serve --count 8` is a fleet
# of two sites (BMCs 0-3 tagged site-a, 4-7 site-b), both collectors on localhost
# (nightly-hosts.yml). After the baselines are bootstrapped, night 1 (every BMC as its
# baseline) passes; night 2 (BMC 5 took the NIC firmware update that resets DCBX) fails the
# play at the merge with BLOCK. Installs ansible-core into a virtual environment
# (target/ansible-venv) when `ansible-playbook` is not on PATH.
#
# Usage: bash examples/ansible/nightly-dry-run.sh [DRIFTGATE]
set -euo pipefail
cd "$(dirname "$0")/../.."
source examples/ansible/ansible-env.sh
bin=$(realpath "${1:-target/debug/driftgate}")
recorded=$PWD/examples/azure-local-dcbx/recorded
work=$(mktemp -d)
store=$work/store
server=
failures=0
export DRIFTGATE_MOCKUP_USERNAME=root DRIFTGATE_MOCKUP_PASSWORD=lab-only

stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# serve ARGS…: (re)starts the 8 BMCs; the store's inventory tags cluster sim-c000 site-a and
# sim-c001 site-b.
serve() {
    stop_server
    "$bin" --color never mockup serve "$recorded/baseline/bmc" --count 8 --listen 127.0.0.1:0 \
        --auth session --cluster-size 4 --write-inventory "$work/sim.toml" "$@" \
        >"$work/serve.out" 2>"$work/serve.err" &
    server=$!
    for _ in $(seq 400); do
        grep -q '^serving ' "$work/serve.out" && break
        kill -0 "$server" 2>/dev/null || { echo "the simulator did not start: $(cat "$work/serve.err")" >&2; exit 1; }
        sleep 0.05
    done
    sed -e 's/^cluster = "sim-c000"$/&\ntags = ["site-a"]/' -e 's/^cluster = "sim-c001"$/&\ntags = ["site-b"]/' \
        "$work/sim.toml" >"$store/inventory.toml"
}

play() {
    local expected=$1 run=$2
    echo "\$ ansible-playbook -i nightly-hosts.yml nightly-check.yml -e driftgate_run=$run"
    local code=0
    ANSIBLE_NOCOLOR=1 ansible-playbook -i examples/ansible/nightly-hosts.yml examples/ansible/nightly-check.yml \
        -e "driftgate_run=$run" -e "driftgate=$bin" -e "driftgate_results=$work/collectors" \
        -e "driftgate_controller_results=$work/controller" \
        -e "{\"driftgate_global_args\": [\"--repo\", \"$store\"], \"driftgate_controller_args\": [\"--repo\", \"$store\"]}" \
        >"$work/play.out" 2>&1 || code=$?
    # The fleet summary, as the play showed it.
    sed -n '/Show the fleet summary/,/^$/p' "$work/play.out"
    local outcome=$([ "$code" = 0 ] && echo passes || echo fails)
    echo "→ $outcome (expected $expected)"
    echo
    if [ "$outcome" != "$expected" ]; then
        cat "$work/play.out"
        failures=$((failures + 1))
    fi
}

"$bin" baseline init "$store" >/dev/null
serve
"$bin" --repo "$store" check --all --bootstrap --quiet --out-dir "$work/bootstrap" >/dev/null
"$bin" --repo "$store" baseline promote --fleet sim "$work/bootstrap/snapshots/"*.json -m "known-good fleet" >/dev/null
echo "# baselines of 8 hosts in two sites promoted"

play passes NIGHT-1
serve --bmc-state "5=$recorded/post-update/bmc"
play fails NIGHT-2
if ! grep -q "FLEET BLOCK" "$work/play.out"; then
    echo "night 2 did not end in a BLOCK fleet verdict" >&2
    failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || { echo "nightly Ansible dry run: $failures play(s) ended differently" >&2; exit 1; }
echo "nightly Ansible dry run: every play as expected"
