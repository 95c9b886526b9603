#!/usr/bin/env bash
# Writes scripts/startup-order.txt: the functions the short commands run, in the order the
# release build (`cargo release-build`, .cargo/config.toml) lays them out at the start of the
# binary's code, so that a command faults in a few contiguous pages of code instead of one page
# range in every 64 KiB of a 12 MB text (`baseline show`: 84 code page faults before, 36–40 after;
# BENCHMARKS.md, issue 14).
#
#   scripts/startup-order.sh
#
# The functions are read from callgrind (valgrind) runs of the release binary over the shipped
# examples: `baseline show` first (its functions are listed first, so they are contiguous), then
# `--version`, `diff`, `check` of one snapshot and `policy show`. Symbol names carry a hash that
# changes with the compiler and the dependencies' versions: after either, run this again (a name
# the binary no longer has is skipped by the linker, so a stale list costs speed, never
# correctness). Needs valgrind (Debian's package; installed when missing) and cargo.
set -euo pipefail
cd "$(dirname "$0")/.."
die() { echo "startup-order: $*" >&2; exit 1; }

if ! command -v valgrind >/dev/null 2>&1; then
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    echo "startup-order: installing valgrind" >&2
    DEBIAN_FRONTEND=noninteractive $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends valgrind >/dev/null
fi

bash scripts/test-deps.sh --build
echo "startup-order: building the release binary" >&2
cargo --quiet release-build </dev/null
bin=$PWD/target/release/driftgate

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
store=$work/store
"$bin" baseline init "$store" >/dev/null
"$bin" baseline promote --repo "$store" --fleet lab --force --reason "startup order" \
    examples/azure-local-dcbx/baseline.json >/dev/null
host=$(sed -n 's/^  "host": "\(.*\)",$/\1/p' examples/azure-local-dcbx/baseline.json)
[ -n "$host" ] || die "no host in examples/azure-local-dcbx/baseline.json"

# One traced run; a command that judges may exit 1 (blocked): only a crash is an error.
trace() {
    local name=$1
    shift
    local code=0
    valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/$name.out" \
        "$bin" --color never "$@" >/dev/null 2>"$work/$name.err" || code=$?
    [ "$code" -le 3 ] || die "$name exited $code: $(tail -5 "$work/$name.err")"
}
trace show baseline show --repo "$store" "$host"
trace version --version
trace diff diff examples/azure-local-dcbx/baseline.json examples/azure-local-dcbx/post-update.json
trace check check --snapshot examples/azure-local-dcbx/post-update.json \
    --baseline examples/azure-local-dcbx/baseline.json
trace policy policy show

python3 - "$bin" "$work" show version diff check policy >scripts/startup-order.txt <<'EOF_PY'
import re, subprocess, sys

binary, work, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
# Function symbols the binary defines: only these can be ordered.
nm = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True)
functions = {f[2] for f in (line.split() for line in nm.stdout.splitlines())
             if len(f) == 3 and f[1] in "tTwW"}
listed = set()
for run in runs:
    # callgrind names a function once, `fn=(id) name` or `cfn=(id) name`, then by id alone.
    names = set()
    with open(f"{work}/{run}.out") as out:
        for line in out:
            m = re.match(r"c?fn=\(\d+\) (\S+)", line)
            if m and m.group(1) in functions:
                names.add(m.group(1))
    for name in sorted(names - listed):
        print(name)
    listed |= names
print(f"startup-order: {len(listed)} functions", file=sys.stderr)
EOF_PY
echo "startup-order: relinking with the new order" >&2
cargo --quiet release-build </dev/null
echo "startup-order: wrote scripts/startup-order.txt" >&2
