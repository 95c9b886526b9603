#!/usr/bin/env bash
# The fleet capture benchmark: N simulated BMCs of the Dell capture at a
# latency per request, `driftgate check --all` against them, and the peer (the DMTF python
# `redfish` library, benches/peer/redfish_crawl.py) crawling the same resources sequentially
# and with a pool of --pool threads (16). Prints Markdown for BENCHMARKS.md.
#
#   scripts/bench-fleet.sh [--hosts 100,1000] [--latency 50] [--runs 5] [--sample 20]
#                          [--pool-sample 100] [--pool 16] [--concurrency 64[,200]] [--bmc-concurrency 4]
#                          [--mixed PCT:MS] [--mixed-hosts 1000] [--base-port 20000] [--single-only]
#
# BENCH_DRIFTGATE=PATH benchmarks that driftgate binary instead of building this tree's.
#
# First, on one simulated BMC (`mockup serve` as it is today): driftgate capture and the peer,
# the set of URIs each GETs (from the simulator's -vv log) compared, requests per host by the
# simulator's own counter (/driftgate/requests). --single-only stops there. Then, per host
# count: `mockup serve --count N --write-inventory`, `check --all` under /usr/bin/time -v
# (wall, peak RSS), requests per host from each BMC's counter, the peer with a pool of --pool over
# --pool-sample hosts and sequentially over --sample hosts, each scaled to N (its time per
# host is flat: at 1,000 hosts and 50 ms a whole sequential run would take ~an hour, a pool-5
# one ~11 minutes), medians over --runs. --concurrency takes a list (64,200: the default and the
# in-flight count of the memory target): each host count is checked at each, against the same
# simulator, the peers once (they do not depend on it), the mixed fleet at the first.
#
# The latency limit: per host, the larger of critical path × latency (the longest chain of
# requests each needing the answer of the one before, login and logout included, which the
# peer derives from the crawl's structure over the same URI set) and requests × latency ÷
# requests in flight per BMC; over the run, that × ceil(hosts ÷ hosts in flight).
#
# driftgate's CPU and peak RSS are its own process's (/usr/bin/time -v); the simulator runs in
# another process, whose CPU during the check (/proc/PID/stat) is reported beside it with its
# share of the machine's. --mixed PCT:MS adds, per host count, a run in which every
# (100/PCT)-th BMC answers at MS per request (`--bmc-fault I:latency=MS`): its limit is the
# larger of the uniform one and the slowest host's own (the same formula at MS). It runs twice
# (--mixed-hosts: only at those host counts): a first night into an empty --out-dir, then the
# next night into the same one, where the hosts that took longest start first.
set -euo pipefail

hosts_list=100,1000
latency=50
runs=5
sample=20
pool_sample=100
pool=16
mixed=""
mixed_hosts=""
concurrency=64
bmc_concurrency=4
base_port=20000
single_only=false
usage() { sed -n '7,9p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --hosts) hosts_list=$2; shift 2 ;;
        --latency) latency=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --sample) sample=$2; shift 2 ;;
        --pool-sample) pool_sample=$2; shift 2 ;;
        --pool) pool=$2; shift 2 ;;
        --mixed) mixed=$2; shift 2 ;;
        --mixed-hosts) mixed_hosts=$2; shift 2 ;;
        --concurrency) concurrency=$2; shift 2 ;;
        --bmc-concurrency) bmc_concurrency=$2; shift 2 ;;
        --base-port) base_port=$2; shift 2 ;;
        --single-only) single_only=true; shift ;;
        -h|--help) usage ;;
        *) echo "bench-fleet: unknown argument $1" >&2; usage ;;
    esac
done

cd "$(dirname "$0")/.."
repo=$PWD
dell=$repo/tests/fixtures/public/redfish/libredfish-dell
[ -d "$dell/redfish/v1" ] || { echo "bench-fleet: the Dell capture is not at $dell" >&2; exit 1; }
die() { echo "bench-fleet: $*" >&2; exit 1; }

# Every BMC is a listening socket of the simulator, every request in flight a connection.
max_hosts=$(tr ',' '\n' <<<"$hosts_list" | sort -n | tail -1)
max_concurrency=$(tr ',' '\n' <<<"$concurrency" | sort -n | tail -1)
want=$((max_hosts * 2 + max_concurrency * bmc_concurrency * 2 + 1024))
hard=$(ulimit -Hn)
if [ "$hard" != unlimited ] && [ "$hard" -lt "$want" ]; then want=$hard; fi
ulimit -n "$want" || die "cannot raise the open-file limit to $want (ulimit -Hn: $hard)"

# The account of the simulated BMCs, made up per run: the simulator, driftgate (through the
# written inventory's username_env/password_env) and the peer read it from the environment.
export DRIFTGATE_MOCKUP_USERNAME=bench
DRIFTGATE_MOCKUP_PASSWORD=$(head -c 18 /dev/urandom | base64 | tr -d '/+=')
export DRIFTGATE_MOCKUP_PASSWORD
export CI=true  # no progress bar

# BENCH_DRIFTGATE=path benchmarks that binary instead of building this tree's as it is
# deployed (README: `--profile dist`, statically linked).
driftgate=${BENCH_DRIFTGATE:-}
if [ -z "$driftgate" ]; then
    echo "bench-fleet: building the binary to deploy (--profile dist)" >&2
    RUSTFLAGS="-C target-feature=+crt-static" cargo build --profile dist --locked --quiet \
        --target x86_64-unknown-linux-gnu </dev/null
    driftgate=$(realpath "${CARGO_TARGET_DIR:-$repo/target}")/x86_64-unknown-linux-gnu/dist/driftgate
fi

venv=$repo/target/bench-venv
if ! "$venv/bin/python" -c 'import redfish' 2>/dev/null; then
    echo "bench-fleet: installing the peer (DMTF redfish) into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet 'redfish==3.4.2'
fi
python=$venv/bin/python
peer=$repo/benches/peer/redfish_crawl.py
stats=$repo/benches/peer/fleet_stats.py

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-fleet.XXXXXX")
simulator=""
stop_simulator() {
    if [ -n "$simulator" ]; then
        kill "$simulator" 2>/dev/null || true
        wait "$simulator" 2>/dev/null || true
        simulator=""
    fi
}
trap 'stop_simulator; rm -rf "$work"' EXIT
# A baseline store of its own: no baselines (every host is judged on invariants), nothing
# written to the project's repository.
git init --quiet "$work/store"
export DRIFTGATE_REPO=$work/store

# Starts `driftgate mockup serve "$@"` with its log in $work/sim.log; sets $simulator and
# $sim_url (the first BMC's URL).
start_simulator() {
    : >"$work/sim.out"
    "$driftgate" --color never "${sim_verbosity[@]}" mockup serve "$@" \
        >"$work/sim.out" 2>"$work/sim.log" &
    simulator=$!
    for _ in $(seq 600); do
        # One BMC: "serving DIR on URL"; a fleet: one "bmc I NAME URL" line each, then "serving N BMCs".
        grep -q '^serving ' "$work/sim.out" 2>/dev/null && break
        kill -0 "$simulator" 2>/dev/null || die "the simulator stopped: $(tail -3 "$work/sim.log")"
        sleep 0.1
    done
    grep -q '^serving ' "$work/sim.out" || die "the simulator did not say where it serves"
    sim_url=$(awk '/^serving .* on /{for (i = 1; i < NF; i++) if ($i == "on") { print $(i + 1); exit }}' "$work/sim.out")
}

## 1. One BMC: the same URIs, requests per host both ways.
sim_verbosity=(-vv)
start_simulator "$dell" --listen 127.0.0.1:0 --latency "$latency" --auth session
echo "$sim_url" >"$work/one.txt"
gets_since() { tail -n +"$(($1 + 1))" "$work/sim.log" | sed -n 's/^DEBUG GET //p' | grep -v '^/driftgate/' | sed 's#/$##' | sort -u; }
"$python" "$stats" counts "$work/one.txt" >"$work/c0.json"
mark=$(wc -l <"$work/sim.log")
DRIFTGATE_BMC_USERNAME=$DRIFTGATE_MOCKUP_USERNAME DRIFTGATE_BMC_PASSWORD=$DRIFTGATE_MOCKUP_PASSWORD \
    /usr/bin/time -v "$driftgate" capture --host h --source "redfish=$sim_url" \
    --bmc-concurrency "$bmc_concurrency" --out "$work/h.json" 2>"$work/capture.time" \
    </dev/null || die "driftgate capture failed: $(grep -v '^\s' "$work/capture.time" | tail -3)"
"$python" "$stats" counts "$work/one.txt" >"$work/c1.json"
sleep 0.2
gets_since "$mark" >"$work/driftgate.uris"
mark=$(wc -l <"$work/sim.log")
"$python" "$peer" --sequential --urls-file "$work/one.txt" >"$work/peer-one.json" \
    || die "the peer failed on one BMC: $(cat "$work/peer-one.json")"
"$python" "$stats" counts "$work/one.txt" >"$work/c2.json"
sleep 0.2
gets_since "$mark" >"$work/peer.uris"
stop_simulator
if ! diff -u "$work/driftgate.uris" "$work/peer.uris" >"$work/uris.diff"; then
    cat "$work/uris.diff" >&2
    die "the peer does not GET the same URIs as driftgate (diff above: - driftgate, + peer)"
fi
"$python" "$stats" time-v "$work/capture.time" >"$work/capture.json"
"$python" - "$work" "$latency" <<'EOF'
import json, sys
work, latency = sys.argv[1], sys.argv[2]
load = lambda name: json.load(open(f"{work}/{name}"))
c0, c1, c2 = (next(iter(load(n).values())) for n in ("c0.json", "c1.json", "c2.json"))
capture, peer = load("capture.json"), load("peer-one.json")
uris = sum(1 for _ in open(f"{work}/driftgate.uris"))
print(f"### One simulated BMC (Dell capture, {latency} ms per request, session login)\n")
print(f"Both GET the same {uris} distinct URIs (the simulator's -vv log, compared).\n")
print("| client | wall s | requests (simulator's count) | peak RSS MiB |")
print("|---|---:|---:|---:|")
print(f"| driftgate capture | {capture['wall']:.2f} | {c1 - c0} | {capture['rss_kib'] / 1024:.0f} |")
print(f"| peer (DMTF redfish {peer['peer'].rsplit(' ', 1)[-1]}) | {peer['wall_seconds']:.2f} | {c2 - c1} | – |")
print(f"\nCritical path (crawl structure): {peer['critical_path']['median']} dependent requests.\n")
EOF
$single_only && exit 0

## 2. The fleet: `mockup serve --count` and `check --all` (a build before them stops here, saying so).
"$driftgate" mockup serve --help 2>/dev/null | grep -q -- '--count' \
    && "$driftgate" mockup serve --help 2>/dev/null | grep -q -- '--write-inventory' \
    || die "needs \`driftgate mockup serve --count N --write-inventory FILE\` (the multi-BMC simulator); this build has no --count"
"$driftgate" check --help 2>/dev/null | grep -q -- '--all' \
    || die "needs \`driftgate check --all --inventory FILE\` (the fleet check); this build has no --all"
# A fleet without baselines yet: its first run is a bootstrap.
bootstrap_flag=()
if "$driftgate" check --help 2>/dev/null | grep -q -- '--bootstrap'; then
    bootstrap_flag=(--bootstrap)
fi
bmc_flag=()
if "$driftgate" check --help 2>/dev/null | grep -q -- '--bmc-concurrency'; then
    bmc_flag=(--bmc-concurrency "$bmc_concurrency")
fi

sim_verbosity=()
records=$work/records.jsonl
: >"$records"
# The simulator's CPU seconds so far (user + system, from /proc/PID/stat).
sim_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.3f\n", ($14 + $15) / hz }' "/proc/$simulator/stat"; }

# fleet_runs HOSTS KIND [SIMULATOR ARGS…]: --runs runs of `check --all` against HOSTS BMCs;
# KIND uniform runs it at each --concurrency and the peers once, KIND mixed (slow BMCs) at the
# first --concurrency and no peer; KIND mixed-next keeps the output directory of the run before
# (the next night of the same fleet).
fleet_runs() {
    local hosts=$1 kind=$2
    shift 2
    start_simulator "$dell" --count "$hosts" --listen "127.0.0.1:$base_port" \
        --latency "$latency" --auth session --write-inventory "$work/inventory.toml" "$@"
    "$python" "$stats" urls "$work/inventory.toml" >"$work/urls.txt"
    [ "$(wc -l <"$work/urls.txt")" -eq "$hosts" ] || die "the inventory lists $(wc -l <"$work/urls.txt") BMCs, not $hosts"
    head -n "$sample" "$work/urls.txt" >"$work/sample.txt"
    head -n "$pool_sample" "$work/urls.txt" >"$work/pool-sample.txt"
    local in_flight
    read -r -a in_flight <<<"${concurrency//,/ }"
    [ "$kind" = uniform ] || in_flight=("${in_flight[0]}")
    local run status sim_before sim_after c peers
    for run in $(seq "$runs"); do
        for c in "${in_flight[@]}"; do
            echo "bench-fleet: $hosts hosts ($kind), $c in flight, run $run of $runs" >&2
            [ "$kind" = mixed-next ] || rm -rf "$work/out"
            "$python" "$stats" counts "$work/urls.txt" >"$work/before.json"
            status=0
            sim_before=$(sim_cpu)
            /usr/bin/time -v "$driftgate" check --all --inventory "$work/inventory.toml" \
                --concurrency "$c" "${bmc_flag[@]}" "${bootstrap_flag[@]}" --out-dir "$work/out" --format json \
                >"$work/check.json" 2>"$work/check.time" </dev/null || status=$?
            sim_after=$(sim_cpu)
            # 0 pass/warn, 1 block, 3 incomplete are verdicts; 2 (usage) and the rest are not.
            case $status in 0|1|3) ;; *) die "check --all exited $status: $(grep -v '^\s' "$work/check.time" | tail -5)" ;; esac
            "$python" "$stats" counts "$work/urls.txt" >"$work/after.json"
            "$python" "$stats" delta "$work/before.json" "$work/after.json" >"$work/driftgate.req"
            # The peers do not depend on driftgate's hosts in flight: once per run.
            peers=false
            if [ "$kind" = uniform ] && [ "$c" = "${in_flight[0]}" ]; then
                peers=true
                "$python" "$stats" counts "$work/pool-sample.txt" >"$work/before-pool.json"
                "$python" "$peer" --pool "$pool" --urls-file "$work/pool-sample.txt" >"$work/pool.json" || true
                "$python" "$stats" counts "$work/pool-sample.txt" >"$work/after-pool.json"
                "$python" "$stats" delta "$work/before-pool.json" "$work/after-pool.json" >"$work/peer.req"
                "$python" "$peer" --sequential --urls-file "$work/sample.txt" >"$work/sequential.json" || true
            fi
            "$python" "$stats" time-v "$work/check.time" >"$work/check.timed"
            "$python" - "$work" "$hosts" "$sample" "$pool_sample" "$kind" "$sim_before" "$sim_after" "$(nproc)" \
                "$c" "$run" "$peers" >>"$records" <<'EOF'
import json, statistics, sys
work, hosts, sample, pool_sample = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
kind, sim_cpu, cores = sys.argv[5], float(sys.argv[7]) - float(sys.argv[6]), int(sys.argv[8])
concurrency, run, peers = int(sys.argv[9]), int(sys.argv[10]), sys.argv[11] == "true"
load = lambda name: json.load(open(f"{work}/{name}"))
check = load("check.json")
record = {
    "hosts": hosts,
    "kind": kind,
    "concurrency": concurrency,
    "run": run,
    "driftgate": load("check.timed"),
    "simulator_cpu": sim_cpu,
    "cores": cores,
    "driftgate_requests": statistics.median(load("driftgate.req")),
    "incomplete": check["counts"]["incomplete"],
}
if peers:
    pool = load("pool.json")
    record.update({
        "sample": min(sample, hosts),
        "pool_sample": min(pool_sample, hosts),
        "peer_requests": statistics.median(load("peer.req")),
        "critical_path": pool["critical_path"]["median"],
        "peer_failed": pool["failed"] + load("sequential.json")["failed"],
        "pool": pool,
        "sequential": load("sequential.json"),
    })
print(json.dumps(record))
EOF
        done
    done
    stop_simulator
}

for hosts in ${hosts_list//,/ }; do
    fleet_runs "$hosts" uniform
    if [ -n "$mixed" ] && [[ ",${mixed_hosts:-$hosts}," == *",$hosts,"* ]]; then
        share=${mixed%%:*} slow_ms=${mixed##*:}
        step=$((100 / share))
        slow=$(seq -s, 0 "$step" $((hosts - 1)))
        fleet_runs "$hosts" mixed --bmc-fault "$slow:latency=$slow_ms"
        fleet_runs "$hosts" mixed-next --bmc-fault "$slow:latency=$slow_ms"
    fi
done

echo "### ${hosts_list//,/ and } simulated BMCs (Dell capture, $latency ms per request)"
echo
echo "driftgate \`check --all --concurrency C\` (C: ${concurrency//,/ and } hosts in flight; ${bmc_concurrency} requests in flight per BMC); the"
echo "sequential peer crawls the first $sample hosts, the pool-$pool peer the first $pool_sample, each scaled to the"
echo "fleet; medians of $runs runs."
echo
"$python" "$stats" table "$records" --latency "$latency" --concurrency "$concurrency" \
    --bmc-concurrency "$bmc_concurrency" --pool "$pool" --mixed "${mixed:-none}"
