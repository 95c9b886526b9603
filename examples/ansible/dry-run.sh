#!/usr/bin/env bash
# Runs examples/ansible/firmware-rollout.yml offline against the gate lab
# (examples/gate/lab.sh): the seed-1 update makes the play fail at the post gate; a
# firmware-only update passes and promotes. Installs ansible-core into a virtual environment
# (target/ansible-venv) when `ansible-playbook` is not on PATH.
#
# Usage: bash examples/ansible/dry-run.sh [DRIFTGATE]
set -euo pipefail
cd "$(dirname "$0")/../.."
source examples/ansible/ansible-env.sh
source examples/gate/lab.sh
lab_start "${1:-target/debug/driftgate}"
failures=0

play() {
    local expected=$1 run=$2 update_to=$3
    echo "\$ ansible-playbook firmware-rollout.yml -e driftgate_run=$run (update to $update_to)"
    local code=0
    ANSIBLE_NOCOLOR=1 ansible-playbook -i examples/ansible/lab-hosts.yml examples/ansible/firmware-rollout.yml \
        -e "driftgate_run=$run" -e "driftgate=$lab_bin" \
        -e "{\"driftgate_global_args\": [\"--repo\", \"$lab_store\"]}" \
        -e "firmware_update_tasks=$PWD/examples/ansible/lab-update.yml" -e reboot_after_update=false \
        -e "lab_host=$lab_host" -e "lab_recorded=$lab_recorded" -e "lab_update_to=$update_to" || code=$?
    local outcome=$([ "$code" = 0 ] && echo passes || echo fails)
    echo "→ $outcome (expected $expected)"
    echo
    [ "$outcome" = "$expected" ] || failures=$((failures + 1))
}

play fails ANS-1001 post-update
lab_state baseline
play passes ANS-1002 benign-update

[ "$failures" -eq 0 ] || { echo "Ansible dry run: $failures play(s) ended differently" >&2; exit 1; }
echo "Ansible dry run: every play as expected"
