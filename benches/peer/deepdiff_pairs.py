#!/usr/bin/env python3
"""The compare benchmark's Python peers (benches/fleet_compare.rs): what a user scripts
instead of `driftgate check --all --snapshots`, over the same host pairs.

  deepdiff_pairs.py deepdiff|deepdiff-rs PAIRS_FILE

PAIRS_FILE has one pair a line: BASELINE<TAB>SNAPSHOT (driftgate snapshot files). Per pair,
sequentially: read and `json.load` both files, then `DeepDiff(baseline["facts"],
snapshot["facts"])` and its report as a dict (deepdiff's result is one; deepdiff-rs's
`to_dict()`), the changes counted. The facts are what driftgate compares: the documents'
other fields (capture time, tool, sources, digest) differ on every pair and are not drift.
Prints one JSON object: peer and version, pairs, seconds of the loop (file reads included,
interpreter start and imports not), changed/added/removed facts.
"""

import json
import sys
import time


def main():
    peer, pairs_file = sys.argv[1], sys.argv[2]
    if peer == "deepdiff":
        import deepdiff
        from deepdiff import DeepDiff

        version = deepdiff.__version__

        def report(t1, t2):
            return DeepDiff(t1, t2)

    elif peer == "deepdiff-rs":
        import deepdiff_rs
        from deepdiff_rs import DeepDiff

        version = deepdiff_rs.__version__

        def report(t1, t2):
            return DeepDiff(t1, t2).to_dict()

    else:
        sys.exit(f"deepdiff_pairs.py: unknown peer {peer!r} (deepdiff or deepdiff-rs)")
    with open(pairs_file) as file:
        pairs = [line.rstrip("\n").split("\t") for line in file if line.strip()]
    counts = {"changed": 0, "added": 0, "removed": 0, "other": 0}
    start = time.perf_counter()
    for baseline_file, snapshot_file in pairs:
        with open(baseline_file, "rb") as file:
            baseline = json.load(file)
        with open(snapshot_file, "rb") as file:
            snapshot = json.load(file)
        for kind, items in report(baseline["facts"], snapshot["facts"]).items():
            key = {
                "values_changed": "changed",
                "type_changes": "changed",
                "dictionary_item_added": "added",
                "dictionary_item_removed": "removed",
            }.get(kind, "other")
            counts[key] += len(items)
    seconds = time.perf_counter() - start
    print(json.dumps({"peer": f"{peer} {version}", "pairs": len(pairs), "seconds": seconds, **counts}))


if __name__ == "__main__":
    main()
