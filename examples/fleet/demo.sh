#!/usr/bin/env bash
# The nightly fleet check, offline: `driftgate mockup serve` simulates 12 BMCs of the seed-1
# host's recorded iDRAC, a scratch store gets their baselines the way an operator bootstraps
# one (a first `check --all --out-dir` of the known-good fleet, then `baseline promote` of its
# snapshots), then the night comes: BMC 3 took the NIC firmware update that resets DCBX
# (post-update), BMC 7 is down and BMC 10 never answers. `check --all` judges the fleet in
# one run (exit 3: incomplete beats block), then the same run as 3 shards and `report merge`
# gives the same fleet verdict. The night's reports in every format (JUnit, SARIF, Prometheus
# textfile, HTML, Markdown, JSON) are kept in target/fleet-reports/. Every exit code is
# checked; the scratch directory and the simulator are removed on exit.
#
# Usage: bash examples/fleet/demo.sh [DRIFTGATE]   (default: target/debug/driftgate)
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-target/debug/driftgate}")
recorded=$PWD/examples/azure-local-dcbx/recorded
reports=$PWD/target/fleet-reports
mkdir -p "$reports"
work=$(mktemp -d)
server=
failures=0

stop() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap stop EXIT

# The simulator's account; the inventory it writes names these variables, never the values.
export DRIFTGATE_MOCKUP_USERNAME=root DRIFTGATE_MOCKUP_PASSWORD=lab-only
store=$work/store

# serve ARGS…: (re)starts the 12 simulated BMCs, rewriting the store's inventory.toml.
serve() {
    stop_server
    "$bin" --color never mockup serve "$recorded/baseline/bmc" --count 12 --listen 127.0.0.1:0 \
        --auth session --cluster-size 4 --fleet lab --write-inventory "$store/inventory.toml" "$@" \
        >"$work/serve.out" 2>"$work/serve.err" &
    server=$!
    for _ in $(seq 400); do
        grep -q '^serving ' "$work/serve.out" && return 0
        kill -0 "$server" 2>/dev/null || break
        sleep 0.05
    done
    echo "the fleet simulator did not start: $(cat "$work/serve.err")" >&2
    exit 1
}

stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=
    fi
}

# step EXPECTED ARGS…: runs `driftgate --repo STORE ARGS…` (its standard output into $out when
# set), counting an unexpected exit code; EXPECTED `judged` takes 0, 1 or 3.
step() {
    local expected=$1
    shift
    echo "\$ driftgate $*"
    local code=0
    # (Not >/dev/stdout: into a file, that would reopen and truncate it.)
    if [ -n "${out:-}" ]; then
        "$bin" --color never --repo "$store" "$@" >"$out" || code=$?
    else
        "$bin" --color never --repo "$store" "$@" || code=$?
    fi
    echo "→ exit $code (expected $expected)"
    [ "$expected" = judged ] || echo
    if [ "$expected" = judged ] && [ "$code" -ne 2 ] && [ "$code" -le 3 ]; then
        return 0
    fi
    if [ "$code" != "$expected" ]; then
        echo "UNEXPECTED: exit $code of driftgate $*" >&2
        failures=$((failures + 1))
    fi
}

"$bin" baseline init "$store" >/dev/null
cd "$work" # the out-dirs below are relative to it

echo "## Bootstrap: the known-good fleet's first run becomes its baselines"
serve
# No baselines yet: every host warns fleet/missing-baseline, and its snapshot is written.
out=/dev/null step 0 check --all --bootstrap --out-dir bootstrap --quiet
echo "(bootstrap run: $(ls bootstrap/snapshots | wc -l) snapshots)"
out=/dev/null step 0 baseline promote --fleet lab bootstrap/snapshots/*.json -m "known-good fleet"

echo "## The night: BMC 3 post-update (DCBX reset), BMC 7 down, BMC 10 hanging"
serve --bmc-state "3=$recorded/post-update/bmc" --bmc-fault 7:down --bmc-fault 10:hang-all
# The hanging BMC costs its own deadline (--host-timeout), never the run's. The summary goes to
# the terminal; the reports go where pipelines and monitoring look.
step 3 check --all --host-timeout 3 --out-dir nightly \
    --report "junit=$reports/junit.xml" --report "sarif=$reports/driftgate.sarif" \
    --report "prometheus=$reports/driftgate.prom" --report "html=$reports/nightly.html" \
    --report "markdown=$reports/nightly.md" --report "json=$reports/nightly.json"
echo "(reports: $(cd "$reports" && ls | tr '\n' ' ')in target/fleet-reports/)"

echo "## The same night as 3 shards (one per machine or pod), then the merge"
# A shard's own exit code only says what its third of the fleet looked like (0, 1 or 3: it
# judged); the fleet verdict is the merge's.
for k in 1 2 3; do
    out=/dev/null step judged check --all --host-timeout 3 --shard "$k/3" --out-dir "shard-$k" \
        --quiet --format json
done
step 3 report merge shard-*

# The merge must judge every host as the one unsharded run did.
verdicts() {
    for f in "$1"/hosts/*.json; do
        sed -n 's/^ *"verdict": *"\([a-z]*\)".*/\1/p' "$f" | head -1 | sed "s|^|$(basename "$f" .json) |"
    done
}
sharded=$(for k in 1 2 3; do verdicts "shard-$k"; done | sort)
if [ "$(verdicts nightly | sort)" != "$sharded" ]; then
    echo "UNEXPECTED: the shards judged hosts differently from the unsharded run" >&2
    failures=$((failures + 1))
fi

[ "$failures" -eq 0 ] || { echo "fleet demo: $failures step(s) ended differently" >&2; exit 1; }
echo "fleet demo: every exit code as expected"
