#!/usr/bin/env bash
# The nightly fleet check of a CI job, in one place: github/driftgate-nightly.yml and
# azure/azure-pipelines.yml run this script on a self-hosted runner in the checkout of the
# baseline store (copied there as ci/nightly-check.sh), and run-local.sh runs it against a
# simulated fleet. It runs `driftgate check --all` over the store's inventory.toml and, whatever
# the verdict, writes into $DRIFTGATE_REPORTS:
#
#   junit.xml              the pipeline's test tab (one test suite per host)
#   sarif/driftgate.sarif  code scanning of the store (alone in its folder: Azure's
#                          CodeAnalysisLogs artifact publishes the folder)
#   fleet.html             the page a human opens in the morning (self-contained)
#   summary.md             the job summary
#   run/                   the out-dir: snapshots/, hosts/, run.json (what `report merge` reads)
#   exit-code              driftgate's exit code
#
# Each host's last success goes on the store's branch driftgate/state (committed by check --all,
# never on the baselines' branch): the workflows push it after this script, whatever the verdict.
#
# The one-screen summary goes to standard output, then where each report went. The script exits
# with driftgate's exit code: 0 pass or warn, 1 block, 2 usage or configuration error (no report
# is written), 3 incomplete. BMC credentials are read by driftgate itself from the variables the
# inventory names (username_env/password_env); this script never reads, prints or stores them.
#
# Usage: bash ci/nightly-check.sh [CHECK-ALL FLAGS…]   e.g. --host-timeout 300 --stale-after 30d
# Environment: DRIFTGATE (the binary; default: driftgate on PATH), DRIFTGATE_STORE (the baseline
# store; default: the current directory), DRIFTGATE_REPORTS (default: driftgate-reports).
set -uo pipefail
driftgate=${DRIFTGATE:-driftgate}
store=${DRIFTGATE_STORE:-.}
reports=${DRIFTGATE_REPORTS:-driftgate-reports}

junit=$reports/junit.xml
sarif=$reports/sarif/driftgate.sarif
html=$reports/fleet.html
summary=$reports/summary.md
out_dir=$reports/run

# A night that ends in a configuration error writes no report: remove the last night's, so that
# nothing stale is published in its place (the out-dir is cleared by the run itself).
mkdir -p "$reports/sarif" || exit 2
rm -f "$junit" "$sarif" "$html" "$summary" "$reports/exit-code"

code=0
"$driftgate" --color never --repo "$store" check --all --quiet --out-dir "$out_dir" \
    --report junit="$junit" --report sarif="$sarif" --report html="$html" \
    --report markdown="$summary" "$@" || code=$?
echo "$code" >"$reports/exit-code"

echo
case $code in
    0) echo "driftgate: exit 0 (pass)" ;;
    1) echo "driftgate: exit 1 (BLOCK: drift or a violated rule)" ;;
    2) echo "driftgate: exit 2 (usage or configuration error: nothing was judged)" ;;
    3) echo "driftgate: exit 3 (INCOMPLETE: some hosts could not be read)" ;;
    *) echo "driftgate: exit $code" ;;
esac
for report in "$junit" "$sarif" "$html" "$summary" "$out_dir/run.json" "$reports/exit-code"; do
    [ -s "$report" ] && echo "  $report"
done
exit "$code"
