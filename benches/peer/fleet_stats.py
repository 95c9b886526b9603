#!/usr/bin/env python3
"""The fleet benchmark's bookkeeping for scripts/bench-fleet.sh (standard library only).

  fleet_stats.py urls INVENTORY              the BMC URLs of an inventory.toml, one a line
  fleet_stats.py counts URLS_FILE            each BMC's /driftgate/requests counter, as JSON
  fleet_stats.py delta BEFORE AFTER          per-BMC requests between two `counts`, as JSON
  fleet_stats.py time-v FILE                 wall seconds and peak RSS (KiB) of `/usr/bin/time -v`
  fleet_stats.py table RECORDS --latency MS --concurrency C --bmc-concurrency B
                                             the Markdown table of the runs in RECORDS (JSON lines)

The latency limit of one host is the larger of its critical path × latency (the longest chain
of requests each needing the previous one's answer; the peer derives it from the crawl's
structure, over the same URIs driftgate reads) and its requests × latency ÷ requests in flight
per BMC; of the run, that × ceil(hosts ÷ hosts in flight).
"""

import concurrent.futures
import json
import math
import statistics
import sys
import tomllib
import urllib.request


def urls(inventory):
    with open(inventory, "rb") as file:
        hosts = tomllib.load(file).get("host", [])
    for host in hosts:
        for source in host.get("sources", []):
            if source.startswith("redfish="):
                print(source.split("=", 1)[1].split("?")[0])


def read_count(url):
    try:
        with urllib.request.urlopen(url + "/driftgate/requests", timeout=30) as response:
            return json.load(response)["Requests"]
    except Exception:  # a down BMC has no counter
        return None


def counts(urls_file):
    with open(urls_file, encoding="utf-8") as file:
        bmcs = [line.strip() for line in file if line.strip()]
    with concurrent.futures.ThreadPoolExecutor(max_workers=64) as pool:
        found = list(pool.map(read_count, bmcs))
    json.dump(dict(zip(bmcs, found)), sys.stdout)


def delta(before, after):
    with open(before, encoding="utf-8") as b, open(after, encoding="utf-8") as a:
        start, end = json.load(b), json.load(a)
    # Reading the counter is not counted by the simulator.
    json.dump([end[u] - start[u] for u in end if end[u] is not None and start.get(u) is not None],
              sys.stdout)


def time_v(path):
    wall = rss = None
    cpu = 0.0
    with open(path, encoding="utf-8", errors="replace") as file:
        for line in file:
            line = line.strip()
            if line.startswith("Elapsed (wall clock) time"):
                clock = line.rsplit(" ", 1)[1].split(":")
                wall = sum(float(part) * 60 ** i for i, part in enumerate(reversed(clock)))
            elif line.startswith("Maximum resident set size (kbytes)"):
                rss = int(line.rsplit(" ", 1)[1])
            elif line.startswith(("User time (seconds)", "System time (seconds)")):
                cpu += float(line.rsplit(" ", 1)[1])
    json.dump({"wall": wall, "rss_kib": rss, "cpu": cpu}, sys.stdout)


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def verdict(ok):
    return "pass" if ok else "**FAIL**"


def table(records, latency, concurrency, bmc_concurrency):
    runs = {}
    with open(records, encoding="utf-8") as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                runs.setdefault(record["hosts"], []).append(record)
    seconds = latency / 1000
    rows = []
    rss_at = {}
    print("| hosts | runs | driftgate wall s | limit s | ratio | peer sequential s (scaled) | "
          "× | peer pool-5 s (scaled) | requests/host driftgate : peer | driftgate CPU ms/host | peak RSS MiB | failed hosts driftgate : peer |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for hosts in sorted(runs):
        group = runs[hosts]
        wall = median([r["driftgate"]["wall"] for r in group])
        rss = median([r["driftgate"]["rss_kib"] for r in group])
        # driftgate's own process (user + system); the simulator runs in another.
        cpu = median([r["driftgate"].get("cpu") for r in group])
        rss_at[hosts] = rss
        ours = median([r["driftgate_requests"] for r in group])
        peer = median([r["peer_requests"] for r in group])
        path = median([r["critical_path"] for r in group])
        per_host = max(path * seconds, ours * seconds / bmc_concurrency)
        limit = per_host * math.ceil(hosts / concurrency)
        sample = group[0]["sample"]
        sequential = median([r["sequential"]["wall_seconds"] / r["sequential"]["hosts"] * hosts
                             for r in group])
        pool_sample = group[0].get("pool_sample", hosts)
        pool = median([r["pool"]["wall_seconds"] / r["pool"]["hosts"] * hosts for r in group])
        incomplete = "{} : {}".format(max(r["incomplete"] for r in group),
                                      max(r["peer_failed"] for r in group))
        rows.append((hosts, wall, limit, sequential, ours, peer, incomplete, sample))
        print("| {:,} | {} | {:.2f} | {:.2f} | {:.2f} | {:.1f}{} | {:.0f}× | {:.1f}{} | {:g} : {:g} | {:.1f} | {:.0f} | {} |".format(
            hosts, len(group), wall, limit, wall / limit, sequential,
            "" if sample >= hosts else " ({} sampled)".format(sample),
            sequential / wall, pool,
            "" if pool_sample >= hosts else " ({} sampled)".format(pool_sample),
            ours, peer, cpu * 1000 / hosts, rss / 1024, incomplete))
    print()
    print("Limit per host = max(critical path × {0:g} ms, requests × {0:g} ms ÷ {1}); run = that × "
          "ceil(hosts ÷ {2}).".format(latency, bmc_concurrency, concurrency))
    print()
    print("| target | hosts | value | verdict |")
    print("|---|---:|---|---|")
    for hosts, wall, limit, sequential, ours, peer, incomplete, _ in rows:
        print("| wall ≤ 1.25 × limit | {:,} | {:.2f} | {} |".format(hosts, wall / limit, verdict(wall <= 1.25 * limit)))
        print("| ≥ 20× the sequential peer | {:,} | {:.0f}× | {} |".format(hosts, sequential / wall, verdict(sequential >= 20 * wall)))
        print("| requests/host ≤ the peer's | {:,} | {:g} vs {:g} | {} |".format(hosts, ours, peer, verdict(ours <= peer)))
        print("| every host complete (driftgate : peer) | {:,} | {} | {} |".format(
            hosts, incomplete, verdict(incomplete == "0 : 0")))
    if 100 in rss_at and 1000 in rss_at:
        ratio = rss_at[1000] / rss_at[100]
        print("| RSS(1,000) ≤ 1.5 × RSS(100) | 1,000 | {:.2f}× | {} |".format(ratio, verdict(ratio <= 1.5)))
    else:
        print("| RSS(1,000) ≤ 1.5 × RSS(100) | – | needs --hosts 100,1000 | not measured |")


def main(argv):
    if len(argv) >= 2 and argv[0] == "urls":
        urls(argv[1])
    elif len(argv) >= 2 and argv[0] == "counts":
        counts(argv[1])
    elif len(argv) >= 3 and argv[0] == "delta":
        delta(argv[1], argv[2])
    elif len(argv) >= 2 and argv[0] == "time-v":
        time_v(argv[1])
    elif len(argv) >= 8 and argv[0] == "table":
        options = dict(zip(argv[2::2], argv[3::2]))
        table(argv[1], float(options["--latency"]), int(options["--concurrency"]),
              int(options["--bmc-concurrency"]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
