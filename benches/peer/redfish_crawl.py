#!/usr/bin/env python3
"""The benchmark's peer: the DMTF python `redfish` library crawling what driftgate's Redfish
crawl reads (src/collect/redfish/crawl.rs, Dell's vendor module), so the fleet benchmark
compares like with like.

Per host: a session login (as driftgate: POST to the service root's Links/Sessions), the
service root, Systems → EthernetInterfaces, Bios + its pending Settings + its attribute
registry (Registries → the registry's entry → its Location), Chassis → NetworkAdapters
(+ pending Settings) → Ports, NetworkPorts (+ their pending Settings), NetworkDeviceFunctions
(+ pending Settings) → Dell's DellNetworkAttributes + their Settings + registry,
UpdateService → FirmwareInventory; then the session is deleted. Collections follow
`Members@odata.nextLink` and are read with `$expand=.($levels=1)` when the service root says
it works (as driftgate does), dropping `$expand` for the rest of the crawl on a 501. Unlike
driftgate, one host's crawl reads each URI at most once (an ordinary script keeps what it
read): /redfish/v1/Registries is read once, not once per attribute resource.

Requests go one at a time per host (the library is synchronous, as Ansible's redfish modules
are); hosts go one after another (--sequential) or on a thread pool (--pool N; Ansible's
default forks are 5).

Prints one JSON object on standard output and writes nothing else:
  wall_seconds, hosts, ok, failed, requests_per_host (every HTTP request the library sent,
  counted client-side, retries included: min/median/max), gets_per_host, critical_path (the
  longest chain of requests each needing the previous one's answer, login and logout
  included: the login and the service root need nothing, everything else needs the session
  and the resource linking to it, a registry entry needs both the attribute resource naming
  it and the Registries listing), failures (host: reason, at most 10), and with --uris the
  sorted URIs the first host's crawl GET (to compare with what driftgate GETs).

The account comes from DRIFTGATE_MOCKUP_USERNAME and DRIFTGATE_MOCKUP_PASSWORD, never from an
argument (arguments show in `ps`).

  redfish_crawl.py --sequential --base-port 20000 --count 20
  redfish_crawl.py --pool 5 --urls-file bmcs.txt
"""

import argparse
import concurrent.futures
import json
import os
import statistics
import sys
import time

import redfish
from redfish.rest.v1 import HttpClient

ROOT = "/redfish/v1"
EXPAND = "?$expand=.($levels=1)"
# Where Dell's network device functions link their HII attributes (vendors/dell.rs).
DELL_ATTRIBUTES = ("Links", "Oem", "Dell", "DellNetworkAttributes")


class CrawlError(Exception):
    """A resource the capture needs could not be read: the host failed."""


def link(resource, *path):
    """The `@odata.id` at `path` of `resource`, without a fragment, or None."""
    node = resource
    for key in path:
        if not isinstance(node, dict):
            return None
        node = node.get(key)
    if not isinstance(node, dict) or not isinstance(node.get("@odata.id"), str):
        return None
    return node["@odata.id"].split("#")[0]


def member_link(member):
    """The URI of one `Members` entry (`{"@odata.id": …}`), or None."""
    return link({"member": member}, "member")


def key_of(uri):
    return uri.split("?")[0].rstrip("/")


class HostCrawl:
    """One host's crawl: a counted client, the URIs read, the depth of each answer."""

    def __init__(self, base_url, username, password):
        self.requests = 0
        self.gets = []
        self.read = {}  # URI (no query) -> (body, depth)
        self.depth = 0
        # No connectivity check in the constructor: the counter must be in place before the
        # first request. What the constructor would have done is done below.
        self.client = redfish.redfish_client(
            base_url=base_url,
            username=username,
            password=password,
            default_prefix=ROOT + "/",
            check_connectivity=False,
            timeout=60,
            max_retry=3,
        )
        session_request = self.client._session.request

        def counted(method, url, *args, **kwargs):
            self.requests += 1
            return session_request(method, url, *args, **kwargs)

        self.client._session.request = counted

    def run(self):
        client = self.client
        client.get_root_object()  # GET /redfish/v1/ (open, needs no session): depth 1
        root = client.root_resp.dict
        self.gets.append(ROOT)
        self.read[ROOT] = (root, 1)
        self.depth = 1
        # As HttpClient's constructor does when it checks connectivity.
        client.login_url = link(root, "Links", "Sessions") or ROOT + "/SessionService/Sessions"
        client.login(auth="session")  # depth 1: needs nothing read
        expand = root.get("ProtocolFeaturesSupported", {}).get("ExpandQuery", {})
        self.expand = expand.get("Levels") is True and expand.get("MaxLevels", 1) >= 1
        try:
            self.systems(root)
            self.adapters(root)
            self.firmware(root)
        finally:
            client.logout()
            self.depth += 1
        return self.depth

    def get(self, uri, after, query=""):
        """GETs `uri` once the answer at depth `after` is in (and the session: depth 1)."""
        key = key_of(uri)
        if key in self.read and not query:
            return self.read[key]
        response = self.client.get(uri + query)
        self.gets.append(uri + query)
        depth = max(after, 1) + 1
        self.depth = max(self.depth, depth)
        if response.status != 200:
            raise CrawlError("GET {}{}: HTTP {}".format(uri, query, response.status))
        body = response.dict
        if not isinstance(body, dict):
            raise CrawlError("GET {}{}: not a JSON object".format(uri, query))
        self.read[key] = (body, depth)
        return body, depth

    def members(self, uri, after):
        """The members of the collection at `uri`, each with the depth it was read at."""
        if uri is None:
            return []
        if self.expand:
            try:
                page, depth = self.get(uri, after, EXPAND)
            except CrawlError as error:
                if "HTTP 501" in str(error):
                    self.expand = False
                page = None
            if page is not None and expanded(page):
                found = [(m, depth) for m in page["Members"]]
                for page, depth in self.next_pages(page, depth):
                    if expanded(page):
                        found += [(m, depth) for m in page["Members"]]
                    else:
                        found += self.listed(page, depth)
                for member, depth in found:
                    if "@odata.id" in member:
                        self.read[key_of(member["@odata.id"])] = (member, depth)
                return found
        page, depth = self.get(uri, after)
        found = self.listed(page, depth)
        for page, depth in self.next_pages(page, depth):
            found += self.listed(page, depth)
        return found

    def listed(self, page, depth):
        """GETs each member a collection page lists."""
        uris = [member_link(m) for m in page.get("Members", [])]
        return [self.get(uri, depth) for uri in uris if uri]

    def next_pages(self, page, depth):
        pages = []
        seen = set()
        while isinstance(page.get("Members@odata.nextLink"), str):
            next_uri = page["Members@odata.nextLink"]
            if next_uri in seen or len(pages) >= 1000:
                raise CrawlError("Members@odata.nextLink loops at " + next_uri)
            seen.add(next_uri)
            page, depth = self.get(next_uri, depth)
            pages.append((page, depth))
        return pages

    def pending(self, resource, depth):
        uri = link(resource, "@Redfish.Settings", "SettingsObject")
        if uri:
            self.get(uri, depth)

    def registry(self, root, resource, depth):
        """The attribute registry `resource` names, through the root's Registries."""
        name = resource.get("AttributeRegistry")
        collection = link(root, "Registries")
        if not isinstance(name, str) or not collection:
            return
        base = name.split(".v")[0]
        alias = name.replace("NetworkAttributeRegistry_", "NetworkAttributesRegistry_", 1)
        registries, listed_at = self.get(collection, 1)  # needs only the root
        for member in registries.get("Members", []):
            entry = member_link(member)
            if not entry:
                continue
            entry_id = entry.rsplit("/", 1)[-1]
            if entry_id in (name, alias) or entry_id.split(".v")[0] == base:
                file, at = self.get(entry, max(depth, listed_at))
                locations = file.get("Location") or []
                english = [l for l in locations if str(l.get("Language", "")).lower() == "en"]
                chosen = (english or locations or [{}])[0]
                if isinstance(chosen.get("Uri"), str):
                    self.get(chosen["Uri"], at)
                return

    def systems(self, root):
        for system, depth in self.members(link(root, "Systems"), 1):
            self.members(link(system, "EthernetInterfaces"), depth)
            bios_uri = link(system, "Bios")
            if bios_uri:
                bios, at = self.get(bios_uri, depth)
                self.pending(bios, at)
                self.registry(root, bios, at)

    def adapters(self, root):
        for chassis, depth in self.members(link(root, "Chassis"), 1):
            for adapter, at in self.members(link(chassis, "NetworkAdapters"), depth):
                self.pending(adapter, at)
                for kind in ("Ports", "NetworkPorts"):
                    for port, port_at in self.members(link(adapter, kind), at):
                        self.pending(port, port_at)
                for function, function_at in self.members(link(adapter, "NetworkDeviceFunctions"), at):
                    self.pending(function, function_at)
                    attributes_uri = link(function, *DELL_ATTRIBUTES)
                    if attributes_uri:
                        attributes, attributes_at = self.get(attributes_uri, function_at)
                        self.pending(attributes, attributes_at)
                        self.registry(root, attributes, attributes_at)

    def firmware(self, root):
        service_uri = link(root, "UpdateService")
        if service_uri:
            service, depth = self.get(service_uri, 1)
            self.members(link(service, "FirmwareInventory"), depth)


def expanded(page):
    members = page.get("Members")
    return isinstance(members, list) and all(isinstance(m, dict) and len(m) > 1 for m in members)


def crawl_host(base_url, username, password):
    """One host: (url, ok, reason, requests, gets, critical path, URIs read)."""
    crawl = None
    try:
        crawl = HostCrawl(base_url, username, password)
        depth = crawl.run()
        return (base_url, True, None, crawl.requests, len(crawl.gets), depth, crawl.gets)
    except Exception as error:  # any failure fails the host, as a capture fails closed
        requests = crawl.requests if crawl else 0
        gets = len(crawl.gets) if crawl else 0
        return (base_url, False, "{}: {}".format(type(error).__name__, error), requests, gets, None, [])


def spread(values):
    if not values:
        return None
    return {"min": min(values), "median": statistics.median(values), "max": max(values)}


def main():
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog="example: DRIFTGATE_MOCKUP_USERNAME=root DRIFTGATE_MOCKUP_PASSWORD=… "
        "redfish_crawl.py --pool 5 --base-port 20000 --count 100",
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--sequential", action="store_true", help="hosts one after another")
    mode.add_argument("--pool", type=int, metavar="N", help="hosts on a pool of N threads")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--urls-file", help="one BMC URL (http://host:port) a line")
    where.add_argument("--base-port", type=int, help="BMCs on 127.0.0.1:P … P+N-1 (with --count)")
    parser.add_argument("--count", type=int, help="how many BMCs from --base-port")
    parser.add_argument("--uris", action="store_true", help="also print the URIs the first host's crawl GETs")
    args = parser.parse_args()

    if args.base_port is not None:
        if not args.count or args.count < 1:
            parser.error("--base-port needs --count N (N >= 1)")
        urls = ["http://127.0.0.1:{}".format(args.base_port + i) for i in range(args.count)]
    else:
        with open(args.urls_file, encoding="utf-8") as file:
            urls = [line.strip() for line in file if line.strip() and not line.startswith("#")]
    username = os.environ.get("DRIFTGATE_MOCKUP_USERNAME")
    password = os.environ.get("DRIFTGATE_MOCKUP_PASSWORD")
    if not username or not password:
        parser.error("set DRIFTGATE_MOCKUP_USERNAME and DRIFTGATE_MOCKUP_PASSWORD")

    started = time.monotonic()
    if args.sequential:
        results = [crawl_host(url, username, password) for url in urls]
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(args.pool, 1)) as pool:
            results = list(pool.map(lambda url: crawl_host(url, username, password), urls))
    wall = time.monotonic() - started

    ok = [r for r in results if r[1]]
    report = {
        "peer": "DMTF python redfish {}".format(getattr(redfish, "__version__", "?")),
        "mode": "sequential" if args.sequential else "pool-{}".format(args.pool),
        "wall_seconds": round(wall, 3),
        "hosts": len(results),
        "ok": len(ok),
        "failed": len(results) - len(ok),
        "requests_per_host": spread([r[3] for r in ok]),
        "gets_per_host": spread([r[4] for r in ok]),
        "critical_path": spread([r[5] for r in ok]),
        "failures": dict([(r[0], r[2]) for r in results if not r[1]][:10]),
    }
    if args.uris and results:
        report["uris"] = sorted(set(results[0][6]))
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0 if not report["failed"] else 1


if __name__ == "__main__":
    sys.exit(main())
