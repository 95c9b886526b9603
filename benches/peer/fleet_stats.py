#!/usr/bin/env python3
"""The fleet benchmark's bookkeeping for scripts/bench-fleet.sh (standard library only).

  fleet_stats.py urls INVENTORY              the BMC URLs of an inventory.toml, one a line
  fleet_stats.py counts URLS_FILE            each BMC's /driftgate/requests counter, as JSON
  fleet_stats.py delta BEFORE AFTER          per-BMC requests between two `counts`, as JSON
  fleet_stats.py time-v FILE                 wall seconds and peak RSS (KiB) of `/usr/bin/time -v`
  fleet_stats.py table RECORDS --latency MS --concurrency C[,C…] --bmc-concurrency B [--pool N]
                    [--mixed PCT:MS]         the Markdown tables of the runs in RECORDS (JSON lines):
                                             uniform fleets, then (with --mixed) those with slow BMCs

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


def table(records, latency, concurrencies, bmc_concurrency, pool_size=5, mixed=None):
    runs = {}
    slow_runs = {}
    with open(records, encoding="utf-8") as file:
        for line in file:
            if line.strip():
                record = json.loads(line)
                kind = record.get("kind", "uniform")
                if kind == "uniform":
                    key = (record["hosts"], record.get("concurrency", concurrencies[0]))
                    runs.setdefault(key, []).append(record)
                else:
                    slow_runs.setdefault((record["hosts"], kind), []).append(record)
    # The peers ran once per run of a host count, beside its first hosts-in-flight count.
    peers = {}
    for (hosts, _), group in runs.items():
        peers.setdefault(hosts, []).extend(r for r in group if "pool" in r)
    seconds = latency / 1000
    rows = []
    print("| hosts | in flight | runs | driftgate wall s | limit s | ratio | peer sequential s (scaled) | "
          "× | peer pool-{} s (scaled) | requests/host driftgate : peer | driftgate CPU ms/host | peak RSS MiB | "
          "simulator CPU s (machine share) | failed hosts driftgate : peer |".format(pool_size))
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    limits = {}
    for hosts, concurrency in sorted(runs, key=lambda key: (key[1], key[0])):
        group = runs[(hosts, concurrency)]
        peer_group = peers[hosts]
        wall = median([r["driftgate"]["wall"] for r in group])
        rss = median([r["driftgate"]["rss_kib"] for r in group])
        # driftgate's own process (user + system); the simulator runs in another.
        cpu = median([r["driftgate"].get("cpu") for r in group]) * 1000 / hosts
        ours = median([r["driftgate_requests"] for r in group])
        peer = median([r["peer_requests"] for r in peer_group])
        path = median([r["critical_path"] for r in peer_group])
        per_host = max(path * seconds, ours * seconds / bmc_concurrency)
        limit = per_host * math.ceil(hosts / concurrency)
        sample = peer_group[0]["sample"]
        sequential = median([r["sequential"]["wall_seconds"] / r["sequential"]["hosts"] * hosts
                             for r in peer_group])
        pool_sample = peer_group[0].get("pool_sample", hosts)
        pool = median([r["pool"]["wall_seconds"] / r["pool"]["hosts"] * hosts for r in peer_group])
        incomplete = "{} : {}".format(max(r["incomplete"] for r in group),
                                      max(r["peer_failed"] for r in peer_group))
        rows.append((hosts, concurrency, wall, limit, sequential, ours, peer, incomplete, cpu, rss))
        if concurrency == concurrencies[0]:
            limits[hosts] = (limit, path, ours)
        print("| {:,} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.1f}{} | {:.0f}× | {:.1f}{} | {:g} : {:g} | {:.1f} | {:.0f} | {} | {} |".format(
            hosts, concurrency, len(group), wall, limit, wall / limit, sequential,
            "" if sample >= hosts else " ({} sampled)".format(sample),
            sequential / wall, pool,
            "" if pool_sample >= hosts else " ({} sampled)".format(pool_sample),
            ours, peer, cpu, rss / 1024, simulator(group), incomplete))
    print()
    print("Limit per host = max(critical path × {0:g} ms, requests × {0:g} ms ÷ {1}); run = that × "
          "ceil(hosts ÷ hosts in flight).".format(latency, bmc_concurrency))
    print()
    print("| target | hosts | in flight | value | verdict |")
    print("|---|---:|---:|---|---|")
    rss_at = {}
    for hosts, concurrency, wall, limit, sequential, ours, peer, incomplete, cpu, rss in rows:
        rss_at[(hosts, concurrency)] = rss
        at = "| {{}} | {:,} | {} | {{}} | {{}} |".format(hosts, concurrency)
        print(at.format("wall ≤ 1.25 × limit", "{:.2f}".format(wall / limit), verdict(wall <= 1.25 * limit)))
        print(at.format("≥ 20× the sequential peer", "{:.0f}×".format(sequential / wall), verdict(sequential >= 20 * wall)))
        print(at.format("requests/host ≤ the peer's", "{:g} vs {:g}".format(ours, peer), verdict(ours <= peer)))
        print(at.format("every host complete (driftgate : peer)", incomplete, verdict(incomplete == "0 : 0")))
        print(at.format("driftgate CPU ≤ 15 ms/host", "{:.1f} ms".format(cpu), verdict(cpu <= 15)))
        print(at.format("peak RSS ≤ 150 MiB", "{:.0f} MiB".format(rss / 1024), verdict(rss / 1024 <= 150)))
    for concurrency in concurrencies:
        if (1000, concurrency) in rss_at and (10000, concurrency) in rss_at:
            ratio = rss_at[(10000, concurrency)] / rss_at[(1000, concurrency)]
            print("| RSS(10,000) ≤ 1.2 × RSS(1,000) | 10,000 | {} | {:.3f}× | {} |".format(
                concurrency, ratio, verdict(ratio <= 1.2)))
        else:
            print("| RSS(10,000) ≤ 1.2 × RSS(1,000) | – | {} | needs --hosts 1000,10000 | not measured |".format(concurrency))
    if slow_runs and mixed:
        mixed_table(slow_runs, limits, mixed, bmc_concurrency, concurrencies[0])


def simulator(group):
    """The simulator's CPU during the check, and its share of the machine's CPU then."""
    cpu = median([r.get("simulator_cpu") for r in group])
    if cpu is None:
        return "–"
    wall = median([r["driftgate"]["wall"] for r in group])
    cores = group[0].get("cores", 1)
    return "{:.1f} ({:.0%})".format(cpu, cpu / (wall * cores))


def mixed_table(slow_runs, limits, mixed, bmc_concurrency, concurrency):
    """The fleets where some BMCs answer slowly (checked at `concurrency` in flight): their limit
    is the larger of the uniform one and the slowest host's own critical path at the slow
    latency."""
    share, slow_ms = (float(part) for part in mixed.split(":"))
    slow = slow_ms / 1000
    print()
    print("Mixed fleet: {:g} % of the BMCs answer at {:g} ms per request; {} hosts in flight.".format(
        share, slow_ms, concurrency))
    print()
    print("| hosts | night | runs | driftgate wall s | limit s | ratio | verdict (≤ 1.25) | driftgate CPU ms/host | peak RSS MiB | simulator CPU s (machine share) | incomplete |")
    print("|---:|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    nights = {"mixed": "first (empty --out-dir)", "mixed-next": "next (same --out-dir)"}
    for hosts, kind in sorted(slow_runs):
        group = slow_runs[(hosts, kind)]
        if hosts not in limits:
            continue
        uniform, path, ours = limits[hosts]
        slowest = max(path * slow, ours * slow / bmc_concurrency)
        limit = max(uniform, slowest)
        wall = median([r["driftgate"]["wall"] for r in group])
        cpu = median([r["driftgate"].get("cpu") for r in group])
        rss = median([r["driftgate"]["rss_kib"] for r in group])
        print("| {:,} | {} | {} | {:.2f} | {:.2f} | {:.2f} | {} | {:.1f} | {:.0f} | {} | {} |".format(
            hosts, nights.get(kind, kind), len(group), wall, limit, wall / limit, verdict(wall <= 1.25 * limit),
            cpu * 1000 / hosts, rss / 1024, simulator(group),
            max(r["incomplete"] for r in group)))


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
        mixed = options.get("--mixed", "none")
        concurrencies = [int(c) for c in options["--concurrency"].split(",")]
        table(argv[1], float(options["--latency"]), concurrencies,
              int(options["--bmc-concurrency"]), int(options.get("--pool", 5)),
              None if mixed == "none" else mixed)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
