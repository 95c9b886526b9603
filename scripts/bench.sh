#!/usr/bin/env bash
# Every benchmark of BENCHMARKS.md in one run, from a fresh clone: makes (or reuses) the
# Python peers' virtual environment, builds release, runs the store benchmark
# (benches/store.rs), the compare benchmark (benches/fleet_compare.rs) and the policy scaling
# (benches/policy.rs), and writes their Markdown, the machine's facts at the top, into one file.
#
#   scripts/bench.sh [--out FILE] [--quick] [--sizes 100,1000,10000] [--hosts 10000]
#                    [--runs 5] [--peer-sample 1000] [--fleet]
#
# --quick: small sizes and one run, a smoke run (not figures). --sizes goes to the store
# benchmark, --hosts and --peer-sample to the compare benchmark, --runs to all three. --fleet also
# runs scripts/bench-fleet.sh (the fleet capture benchmark, slow: off by default).
# Needs python3 with venv and git; the data is generated from the real Dell capture in
# tests/fixtures/public/redfish/libredfish-dell.
set -euo pipefail

out=target/bench/results.md
sizes=100,1000,10000
hosts=10000
runs=5
peer_sample=1000
fleet=false
quick=false
usage() { sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out=$2; shift 2 ;;
        --quick) quick=true; shift ;;
        --sizes) sizes=$2; shift 2 ;;
        --hosts) hosts=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --peer-sample) peer_sample=$2; shift 2 ;;
        --fleet) fleet=true; shift ;;
        -h|--help) usage ;;
        *) echo "bench: unknown argument $1" >&2; usage ;;
    esac
done
if $quick; then
    sizes=100
    hosts=500
    runs=1
    peer_sample=100
fi

# The output path is taken before the cd, relative to where the script was called from.
case $out in /*) ;; *) out=$PWD/$out ;; esac
cd "$(dirname "$0")/.."
mkdir -p "$(dirname "$out")"

# The peers, pinned; installed only when missing or at another version.
venv=$PWD/target/bench-venv
pins=(deepdiff==9.1.0 deepdiff-rs==0.17.1)
if ! "$venv/bin/python" - "${pins[@]}" 2>/dev/null <<'EOF_PY'
import importlib.metadata, sys
sys.exit(any(importlib.metadata.version(n) != v for n, v in (p.split("==") for p in sys.argv[1:])))
EOF_PY
then
    echo "bench: installing ${pins[*]} into $venv" >&2
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet "${pins[@]}"
fi
python=$venv/bin/python

# The binary as it is deployed (README: `cargo build --profile dist`, statically linked). Every
# bench times it (BENCH_DRIFTGATE), not the plain release binary `cargo bench` builds.
echo "bench: building the binary to deploy (--profile dist)" >&2
bash scripts/test-deps.sh --build
RUSTFLAGS="-C target-feature=+crt-static" cargo --quiet build --profile dist --locked \
    --target x86_64-unknown-linux-gnu --bin driftgate </dev/null
BENCH_DRIFTGATE=$(realpath "${CARGO_TARGET_DIR:-target}")/x86_64-unknown-linux-gnu/dist/driftgate
export BENCH_DRIFTGATE
linking=static
readelf -lW "$BENCH_DRIFTGATE" | grep -q 'program interpreter' && linking=dynamic

cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
ram=$(awk '/^MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
os=$(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-unknown}")
peer_versions=$("$python" -c 'import importlib.metadata as m; print(", ".join(f"{n} {m.version(n)}" for n in ("deepdiff", "deepdiff-rs")))')
{
    echo "# driftgate benchmarks"
    echo
    echo "| machine | |"
    echo "|---|---|"
    echo "| date | $(date -u '+%Y-%m-%d %H:%M UTC') |"
    echo "| commit | $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (modified)') |"
    echo "| driftgate | \`--profile dist\`, $linking |"
    echo "| CPU | ${cpu:-unknown}, $(nproc) cores |"
    echo "| RAM | $ram |"
    echo "| OS | $os, Linux $(uname -r) |"
    echo "| rustc | $(rustc -V) |"
    echo "| git | $(git --version) |"
    echo "| python | $("$python" -V 2>&1) |"
    echo "| peers | $peer_versions |"
    echo "| load before | $(uptime) |"
    echo
    echo "Command: \`scripts/bench.sh --sizes $sizes --hosts $hosts --runs $runs --peer-sample $peer_sample$($fleet && echo ' --fleet')\`$($quick && echo ' (--quick: a smoke run, not figures)')"
    echo
} >"$out"

section() { echo "bench: $1" >&2; { echo "## $1"; echo; } >>"$out"; }

section "Store"
cargo bench --quiet --bench store -- --sizes "$sizes" --runs "$runs" </dev/null >>"$out"
echo >>"$out"

section "Compare"
cargo bench --quiet --bench fleet_compare -- --hosts "$hosts" --runs "$runs" \
    --peer-sample "$peer_sample" --python "$python" </dev/null >>"$out"
echo >>"$out"

section "Policy scaling"
policy_rules=2000,4000,8000,100000
$quick && policy_rules=2000,4000
cargo bench --quiet --bench policy -- --rules "$policy_rules" --runs "$runs" </dev/null >>"$out"

if $fleet; then
    section "Fleet capture"
    if $quick; then
        scripts/bench-fleet.sh --hosts 100 --runs 1 --sample 5 --pool-sample 20 >>"$out"
    else
        scripts/bench-fleet.sh --runs "$runs" >>"$out"
    fi
fi

echo "Load after: \`$(uptime)\`" >>"$out"
echo "bench: wrote $out" >&2
