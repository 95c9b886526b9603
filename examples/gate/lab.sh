# A lab for the gate examples, sourced by examples/gate/demo.sh, examples/cau/dry-run.sh and
# examples/ansible/dry-run.sh: the seed-1 host azl-node01, its recorded iDRAC served by
# `driftgate mockup serve` and its Windows collector output in a folder, both in a scratch
# copy that `lab_state STATE` switches (baseline, post-update, benign-update) the way a
# firmware update would, and a baseline store whose inventory.toml points at them.
#
# After `lab_start DRIFTGATE`: $lab_bin, $lab_store (the store, with the host's baseline
# promoted), $lab_url (the simulated BMC), $lab_host (the scratch copy), $lab_work.

lab_recorded=$(realpath "$(dirname "${BASH_SOURCE[0]}")/../azure-local-dcbx/recorded")

lab_state() {
    echo "# azl-node01 is now in state: $1"
    rm -rf "$lab_host/bmc" "$lab_host/windows"
    cp -r "$lab_recorded/$1/bmc" "$lab_recorded/$1/windows" "$lab_host/"
}

lab_stop() {
    if [ -n "${lab_server:-}" ]; then
        kill "$lab_server" 2>/dev/null || true
        wait "$lab_server" 2>/dev/null || true
    fi
    rm -rf "$lab_work"
}

lab_start() {
    lab_bin=$(realpath "$1")
    lab_work=$(mktemp -d)
    trap lab_stop EXIT
    lab_host=$lab_work/azl-node01
    mkdir -p "$lab_host"
    lab_state baseline
    # The simulator reads its files per request, so switching the copy switches the BMC.
    "$lab_bin" mockup serve "$lab_host/bmc" --listen 127.0.0.1:0 >"$lab_work/serve.out" 2>"$lab_work/serve.err" &
    lab_server=$!
    for _ in $(seq 200); do
        [ -s "$lab_work/serve.out" ] && break
        sleep 0.05
    done
    lab_url=$(sed -n 's/^serving .* on \(http[^ ]*\).*/\1/p' "$lab_work/serve.out")
    if [ -z "$lab_url" ]; then
        echo "the BMC simulator did not start: $(cat "$lab_work/serve.err")" >&2
        return 1
    fi
    lab_store=$lab_work/baselines
    "$lab_bin" baseline init "$lab_store" >/dev/null
    cat >"$lab_store/inventory.toml" <<TOML
[defaults]
fleet = "azure-local"

[[host]]
name = "azl-node01"
cluster = "azl-cluster-a"
tags = ["rack12"]
sources = ["redfish=$lab_url", "windows=dir:$lab_host/windows"]
TOML
    # Onboarding: capture the host while it is known good and promote that as its baseline.
    "$lab_bin" capture --host azl-node01 --source "redfish=$lab_url" --source "windows=dir:$lab_host/windows" \
        --out "$lab_work/azl-node01.json"
    "$lab_bin" --repo "$lab_store" baseline promote --fleet azure-local "$lab_work/azl-node01.json" \
        -m "known good before the firmware wave" >/dev/null
    echo "# lab: BMC simulator at $lab_url, baseline store at $lab_store"
}
