#!/usr/bin/env bash
# A real LLDP/DCBX exchange between two network namespaces joined by a veth pair (issue 41).
#
#   scripts/lldp-lab.sh up DIR [--plain]   # namespaces, veth, agents; state and logs in DIR
#   scripts/lldp-lab.sh pfc DIR on|off|absent  # the switch's PFC TLV: on priority 3 / on none / none
#   scripts/lldp-lab.sh record DIR OUT     # the host side's view, as both tools print it, into OUT
#   scripts/lldp-lab.sh stop-switch DIR    # the switch's lldpd stops: the host has no neighbour
#   scripts/lldp-lab.sh down DIR           # stops the agents, deletes the namespaces (idempotent)
#
# The "switch" namespace (dg-sw-PID, port swp7) runs lldpd (1.0.16) with its own control socket
# DIR/sw.sock, sending the IEEE 802.1Qaz TLVs as custom TLVs (OUI 00-80-C2): ETS configuration
# (subtype 9), ETS recommendation (10), PFC (11), APP (12). --plain sends none of them: a
# neighbour with no DCBX TLV at all. The "host" namespace (dg-host-PID, port eth1, MAC
# 02:00:00:00:41:01) runs Open-LLDP's lldpad, in a mount and IPC namespace of its own (a private
# /dev/shm tmpfs, SysV shared memory of its own, pid file off) with its own config file
# DIR/lldpad.conf, and lldpd -r (receive only) with the socket DIR/host.sock. The namespace
# names are in DIR/names (SW=…, HOST=…). Root only; veth has no DCB hardware, so only the
# peer's side of DCBX is real.
#
# The environment can make the "switch" another node's NIC (a switchless cluster):
# LAB_PEER_NAME (system name, tor-a), LAB_PEER_PORT (its interface, swp7), LAB_PEER_MAC
# (02:00:00:00:41:fe) and LAB_HOST_MAC (the host's eth1, 02:00:00:00:41:01).
#
# Payloads (IEEE 802.1Qaz-2011 D.2.x, info string after OUI and subtype):
#   ETS-CFG 00 | 00 01 00 00 | 32 32 00 00 00 00 00 00 | 02 02 00 00 00 00 00 00
#           willing 0, CBS 0, max TCs 0 (= 8); priority 3 -> TC1, others TC0;
#           TC bandwidths 50/50; TSA: TC0, TC1 ETS (2), others strict (0)
#   ETS-REC 00 (reserved) | the same three tables
#   PFC     08 | 08        willing 0, MBC 0, PFC capability 8 | enabled: priority 3 (bit 3)
#           (off: 08 | 00, "enabled on none")
#   APP     00 (reserved) | 63 12 b7 | 62 01 bd
#           priority 3, selector 3 (UDP) 4791 = RoCEv2; priority 3, selector 2 (TCP) 445 = SMB
set -euo pipefail

usage() { sed -n '3,9p' "$0" | sed 's/^# *//' >&2; exit 2; }
[ $# -ge 2 ] || usage
cmd=$1
dir=$2
shift 2

ETS_TABLES=00,01,00,00,32,32,00,00,00,00,00,00,02,02,00,00,00,00,00,00
ETS_CFG=00,$ETS_TABLES
ETS_REC=00,$ETS_TABLES
PEER_NAME=${LAB_PEER_NAME:-tor-a}
PEER_PORT=${LAB_PEER_PORT:-swp7}
PEER_MAC=${LAB_PEER_MAC:-02:00:00:00:41:fe}
HOST_MAC=${LAB_HOST_MAC:-02:00:00:00:41:01}

PFC_ON=08,08
PFC_OFF=08,00
APP=00,63,12,b7,62,01,bd

names() {
    [ -f "$dir/names" ] || return 1
    # shellcheck disable=SC1091
    . "$dir/names"
}
sw() { ip netns exec "$SW" "$@"; }
host() { ip netns exec "$HOST" "$@"; }
swcli() { sw lldpcli -u "$dir/sw.sock" "$@"; }
hostcli() { host lldpcli -u "$dir/host.sock" "$@"; }

# Waits up to $1 seconds for a command to succeed.
wait_for() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        [ $SECONDS -lt $deadline ] || return 1
        sleep 0.1
    done
}

up() {
    local plain=0
    [ "${1-}" != --plain ] || plain=1
    [ "$(id -u)" -eq 0 ] || { echo "lldp-lab: needs root" >&2; exit 1; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    ! names || { echo "lldp-lab: $dir is in use ($SW, $HOST); run down first" >&2; exit 1; }
    SW=dg-sw-$$
    HOST=dg-host-$$
    printf 'SW=%s\nHOST=%s\n' "$SW" "$HOST" >"$dir/names"
    ip netns add "$SW"
    ip netns add "$HOST"
    ip -n "$SW" link add "$PEER_PORT" type veth peer name eth1 netns "$HOST"
    ip -n "$SW" link set "$PEER_PORT" address "$PEER_MAC" up
    ip -n "$HOST" link set eth1 address "$HOST_MAC" up
    ip -n "$SW" link set lo up
    ip -n "$HOST" link set lo up

    # The switch: lldpd in the foreground (-d) with its own socket, no configuration from /etc
    # (-L ''), only on its port; -p keeps it off /run/lldpd.pid. The script records its pid.
    ip netns exec "$SW" lldpd -d -L '' -u "$dir/sw.sock" -p "$dir/sw.lldpd.pid" -I "$PEER_PORT" -S "driftgate lab switch" \
        >"$dir/sw.log" 2>&1 &
    echo $! >"$dir/sw.pid"
    wait_for 10 swcli show configuration || { cat "$dir/sw.log" >&2; exit 1; }
    swcli configure system hostname "$PEER_NAME" >/dev/null
    swcli configure lldp tx-interval 1 >/dev/null
    if [ $plain -eq 0 ]; then
        swcli configure lldp custom-tlv add oui 00,80,c2 subtype 9 oui-info "$ETS_CFG" >/dev/null
        swcli configure lldp custom-tlv add oui 00,80,c2 subtype 10 oui-info "$ETS_REC" >/dev/null
        swcli configure lldp custom-tlv add oui 00,80,c2 subtype 11 oui-info "$PFC_ON" >/dev/null
        swcli configure lldp custom-tlv add oui 00,80,c2 subtype 12 oui-info "$APP" >/dev/null
    fi

    # The host: lldpd receive-only.
    ip netns exec "$HOST" lldpd -d -r -L '' -u "$dir/host.sock" -p "$dir/host.lldpd.pid" -I eth1 >"$dir/host.log" 2>&1 &
    echo $! >"$dir/host.pid"
    wait_for 10 hostcli show configuration || { cat "$dir/host.log" >&2; exit 1; }

    # The host: lldpad with a private /dev/shm and SysV IPC (its state), no pid file (-p), its
    # own config file. lldptool talks to it over an abstract socket, which is per network
    # namespace.
    ip netns exec "$HOST" unshare --mount --ipc --propagation private sh -c \
        'mount -t tmpfs none /dev/shm && exec lldpad -t -p -f "$1"' sh "$dir/lldpad.conf" \
        >"$dir/lldpad.log" 2>&1 &
    echo $! >"$dir/lldpad.pid"
    wait_for 10 host lldptool -p || { cat "$dir/lldpad.log" >&2; exit 1; }
    host lldptool -L -i eth1 adminStatus=rx >/dev/null
    wait_for 15 host_sees || { echo "lldp-lab: the host does not see the switch" >&2; exit 1; }
}

host_sees() {
    hostcli -f json0 show neighbors | grep -q "$PEER_NAME" \
        && host lldptool -t -n -i eth1 | grep -q 'Chassis ID'
}

pfc() {
    names
    case "${1-}" in
    on) swcli configure lldp custom-tlv replace oui 00,80,c2 subtype 11 oui-info "$PFC_ON" ;;
    off) swcli configure lldp custom-tlv replace oui 00,80,c2 subtype 11 oui-info "$PFC_OFF" ;;
    absent) swcli unconfigure lldp custom-tlv oui 00,80,c2 subtype 11 ;;
    *) usage ;;
    esac >/dev/null
}

record() {
    names
    local out=${1:?} rc tlv
    mkdir -p "$out"
    : >"$out/exit-status.txt"
    # Each output exactly as printed (stdout only; stderr, if any, beside it), and its exit status.
    run() {
        local file=$1
        shift
        rc=0
        "$@" >"$out/$file" 2>"$out/$file.stderr" || rc=$?
        [ -s "$out/$file.stderr" ] || rm -f "$out/$file.stderr"
        echo "$file $rc" >>"$out/exit-status.txt"
    }
    run lldptool-t-n.txt host lldptool -t -n -i eth1
    for tlv in PFC ETS-CFG ETS-REC APP; do
        run "lldptool-t-n-V-$tlv.txt" host lldptool -t -n -i eth1 -V "$tlv"
    done
    run lldpcli-json.json hostcli -f json show neighbors details
    run lldpcli-json0.json hostcli -f json0 show neighbors details
    # The same answers under the names a `--source lldp=dir:OUT` recording reads.
    run ip-link.json host ip -j -d link show
    cp "$out/lldptool-t-n.txt" "$out/lldptool-eth1.txt"
}

# The switch goes away: its lldpd stops (and says so with a shutdown LLDPDU, TTL 0).
stop_switch() {
    names
    [ ! -f "$dir/sw.pid" ] || kill "$(cat "$dir/sw.pid")" 2>/dev/null || true
    wait_for 5 ns_empty "$SW"
}

ns_empty() { [ -z "$(ip netns pids "$1" 2>/dev/null)" ]; }

down() {
    if names; then
        local pidfile
        for pidfile in sw.pid host.pid lldpad.pid; do
            [ -f "$dir/$pidfile" ] || continue
            kill "$(cat "$dir/$pidfile")" 2>/dev/null || true
        done
        # lldpd's privilege-separated child leaves with its monitor; anything still in the
        # namespaces after 3 s is killed.
        local ns
        for ns in "$SW" "$HOST"; do
            wait_for 3 ns_empty "$ns" || { ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null || true; }
            wait_for 3 ns_empty "$ns" || echo "lldp-lab: processes left in $ns: $(ip netns pids "$ns")" >&2
            ip netns del "$ns" 2>/dev/null || true
        done
        rm -f "$dir/names" "$dir"/*.pid "$dir"/*.sock "$dir"/*.sock.lock
    fi
}

case "$cmd" in
up) up "$@" ;;
pfc) pfc "$@" ;;
record) record "$@" ;;
stop-switch) stop_switch ;;
down) down ;;
*) usage ;;
esac
