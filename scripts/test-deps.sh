#!/usr/bin/env bash
# Installs what building and the tests need beyond the Rust toolchain, from Debian's packages:
# a C compiler (libgit2 and zlib are built from their bundled sources; rustc links with it
# too), OpenSSH's server and client (the ssh transport is tested against a throw-away sshd on
# 127.0.0.1), xmllint (JUnit reports are validated against an XSD), Chromium and ChromeDriver
# (the HTML report is tested in a headless browser) and promtool (Prometheus textfiles and
# alert rules), man-db and groff (the man pages are rendered and checked), bash-completion
# (CI installs the Debian package and loads its completion as bash does: scripts/check-deb.sh),
# util-linux's script (a confirmation prompt is answered on a terminal) and setpriv, systemd's
# systemd-analyze and strace (the nightly unit is verified and rated offline, no systemd runs;
# its commands are traced against its system-call filter), lldpd and Open-LLDP's
# lldpad (a real LLDP/DCBX exchange between two network namespaces made with iproute2's ip:
# scripts/lldp-lab.sh) and
# python3-libvirt (for sushy-tools, below); then, from PyPI into the virtualenv
# target/test-venv, ansible-core (Ansible inventories are compared with `ansible-inventory`'s
# own resolution), and into target/sushy-venv, sushy-tools (the OpenStack Redfish emulator,
# over libvirt's test driver: an independent Redfish server whose BIOS settings can be
# changed). For vSphere: pyVmomi into
# target/test-venv, a real vCenter's recorded answers from pyVmomi's sdist into
# target/fixtures/vcenter, and govmomi's vCenter simulator vcsim and its CLI govc, built from
# Debian's govmomi packages (golang-go, golang-github-vmware-govmomi-dev and the source package,
# fetched through a deb-src list of the script's own) into target/vcsim-bin.
# `--build`: only what building needs (examples/run.sh, scripts/bench.sh).
# Safe to run repeatedly: it installs only what is missing. It starts no daemon it installs
# (a policy-rc.d while installing) and leaves no apt source behind (`apt-get source` reads a
# temporary configuration of its own).
set -euo pipefail
case "${1-}" in
"" | --build) ;;
*) echo "usage: bash scripts/test-deps.sh [--build]" >&2; exit 2 ;;
esac
cd "$(dirname "$0")/.."

# Each command building or the tests run, and the Debian package it comes from.
needed=("cc gcc")
[ "${1-}" = "--build" ] || needed+=(
    "/usr/sbin/sshd openssh-server"
    "ssh openssh-client"
    "ssh-keygen openssh-client"
    "xmllint libxml2-utils"
    "chromium chromium"
    "chromedriver chromium-driver"
    "promtool prometheus"
    "python3 python3"
    "man man-db"
    "groff groff-base"
    "/usr/share/bash-completion/bash_completion bash-completion"
    "script bsdutils"
    "setpriv util-linux"
    "systemd-analyze systemd"
    "strace strace"
    "go golang-go"
    "/usr/share/gocode/src/github.com/vmware/govmomi golang-github-vmware-govmomi-dev"
    "/usr/share/gocode/src/github.com/kr/pretty golang-github-kr-pretty-dev"
    "dpkg-source dpkg-dev"
    "/usr/sbin/lldpcli lldpd"
    "/usr/sbin/lldptool lldpad"
    "ip iproute2"
)
missing=()
for entry in "${needed[@]}"; do
    read -r command package <<<"$entry"
    if ! command -v "$command" >/dev/null 2>&1 && [ ! -e "$command" ]; then
        case " ${missing[*]-} " in *" $package "*) ;; *) missing+=("$package") ;; esac
    fi
done
# Debian's python3 makes a virtualenv only with python3-venv (ensurepip).
if [ "${1-}" != "--build" ] && ! python3 -c "import ensurepip, venv" >/dev/null 2>&1; then
    missing+=(python3-venv)
fi
# sushy-tools needs libvirt's Python module, which only Debian's own python3 sees (a pyenv
# python3 earlier on PATH does not); that python3 makes its virtualenv too.
if [ "${1-}" != "--build" ]; then
    /usr/bin/python3 -c "import libvirt" >/dev/null 2>&1 || missing+=(python3-libvirt)
    /usr/bin/python3 -c "import ensurepip, venv" >/dev/null 2>&1 \
        || case " ${missing[*]-} " in *" python3-venv "*) ;; *) missing+=(python3-venv) ;; esac
fi

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
export DEBIAN_FRONTEND=noninteractive
# The system keeps only the packages installed: the policy below and apt's temporary
# configuration (vcsim, further down) are removed however the script ends.
policy_rc="" apt_tmp=""
cleanup() {
    [ -z "$policy_rc" ] || $sudo rm -f "$policy_rc"
    [ -z "$apt_tmp" ] || rm -rf "$apt_tmp"
}
trap cleanup EXIT
# Earlier versions of this script left deb-src lists of their own in /etc/apt.
for legacy in /etc/apt/sources.list.d/driftgate-src.sources /etc/apt/sources.list.d/driftgate-src.list; do
    if [ -e "$legacy" ] && { [ -z "$sudo" ] || command -v sudo >/dev/null; }; then
        echo "test-deps: removing $legacy (an earlier version's)" >&2
        $sudo rm -f "$legacy"
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    [ -z "$sudo" ] || command -v sudo >/dev/null \
        || { echo "test-deps: ${missing[*]} missing and this is not root; install them" >&2; exit 1; }
    echo "test-deps: installing ${missing[*]}" >&2
    # Debian's maintainer scripts start the daemons they install (sshd, prometheus, lldpd,
    # lldpad); the tests start throw-away instances of their own. A policy-rc.d answering 101
    # (action forbidden) while installing keeps them stopped, the Debian way; a policy the
    # system has already is left as it is.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        policy_rc=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\n# driftgate test-deps: no daemon starts while installing\nexit 101\n' \
            | $sudo tee "$policy_rc" >/dev/null
        $sudo chmod 755 "$policy_rc"
    fi
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    # Nor do they start at the next boot, where systemd runs.
    if [ -d /run/systemd/system ]; then
        for entry in "openssh-server ssh.service" "prometheus prometheus.service" \
            "lldpd lldpd.service" "lldpad lldpad.service lldpad.socket"; do
            read -r package units <<<"$entry"
            case " ${missing[*]} " in *" $package "*) $sudo systemctl disable --quiet $units || true ;; esac
        done
    fi
    [ -z "$policy_rc" ] || $sudo rm -f "$policy_rc"
    policy_rc=""
fi
[ "${1-}" = "--build" ] && exit 0

# PyPI tools, pinned, in a virtualenv of the checkout (tests/it/common/ansible.rs knows the
# path). Checked by installed version, so a second run costs a fraction of a second.
venv=target/test-venv
requirements=("ansible-core==2.19.14" "pyvmomi==9.1.1.0")
installed() {
    local venv=$1
    shift
    "$venv/bin/python" - "$@" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(any(version(name) != wanted for name, wanted in (r.split("==") for r in sys.argv[1:])))
PY
}
if ! installed "$venv" "${requirements[@]}"; then
    echo "test-deps: installing ${requirements[*]} into $venv" >&2
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]}"
fi

# sushy-tools in a virtualenv of its own (tests/it/common/sushy.rs knows the path), made by
# Debian's python3 with the system's packages visible: libvirt's module is not on PyPI as a
# wheel, and building it needs libvirt's headers.
sushy_venv=target/sushy-venv
sushy_requirements=("sushy-tools==2.2.0")
if ! installed "$sushy_venv" "${sushy_requirements[@]}"; then
    echo "test-deps: installing ${sushy_requirements[*]} into $sushy_venv" >&2
    [ -x "$sushy_venv/bin/python" ] || /usr/bin/python3 -m venv --system-site-packages "$sushy_venv"
    "$sushy_venv/bin/python" -m pip install -q --disable-pip-version-check "${sushy_requirements[@]}"
fi
"$sushy_venv/bin/python" -c "import libvirt, sushy_tools" \
    || { echo "test-deps: $sushy_venv cannot import libvirt and sushy_tools" >&2; exit 1; }

# pyVmomi, VMware's Python SDK, reads the vCenter simulator below as an independent client
# (tests/fixtures/vcenter/read_luns.py). Its newest releases ship wheels only; 8.0.3.0.1 is the
# newest with a source distribution, whose tests/fixtures/test_json_host_explode.yaml (a vcrpy
# cassette: a real vCenter 8.0.3's SOAP answers) is a parser fixture. Apache-2.0, like pyVmomi;
# downloaded here, not committed. The checksum is the fixture's, so a changed upload is noticed.
pyvmomi_sdist=8.0.3.0.1
fixture=target/fixtures/vcenter/test_json_host_explode.yaml
fixture_sha256=3ad71f76a6a598804bf0c917be22f4779d9c8ed5d50914e92458dee0340aed51
if ! echo "$fixture_sha256  $fixture" | sha256sum --check --status 2>/dev/null; then
    echo "test-deps: extracting $fixture from pyvmomi $pyvmomi_sdist's sdist" >&2
    rm -rf target/pyvmomi-sdist
    "$venv/bin/python" -m pip download -q --disable-pip-version-check --no-binary :all: --no-deps \
        "pyvmomi==$pyvmomi_sdist" -d target/pyvmomi-sdist
    mkdir -p "$(dirname "$fixture")"
    tar -xzf "target/pyvmomi-sdist/pyvmomi-$pyvmomi_sdist.tar.gz" -O \
        "pyvmomi-$pyvmomi_sdist/tests/fixtures/test_json_host_explode.yaml" >"$fixture.part"
    mv "$fixture.part" "$fixture"
    echo "$fixture_sha256  $fixture" | sha256sum --check --quiet \
        || { echo "test-deps: $fixture is not the one the tests were written against" >&2; exit 1; }
fi

# govmomi's vCenter simulator, vcsim, and its CLI, govc (tests/it/common/vcsim.rs knows the
# path). Debian packages the govmomi library (golang-github-vmware-govmomi-dev, under
# /usr/share/gocode) but neither program; their main packages come from the same source
# package, built in GOPATH mode against the installed library. Go's rule that only the tree
# holding an `internal` directory may import it is checked on paths, and govc imports
# govmomi/internal: so the build's GOPATH holds one govmomi tree, made of links to the
# library's directories plus the source package's vcsim and govc. About a minute on 2 cores.
vcsim_bin=target/vcsim-bin
if ! { [ -x "$vcsim_bin/govc" ] && "$vcsim_bin/vcsim" -h >/dev/null 2>&1; }; then
    started=$SECONDS
    # `apt-get source` needs the deb-src indexes, which Debian's images leave out: apt reads
    # them from a configuration of our own in a temporary folder (deb-src entries naming the
    # system's own mirrors and suites, deb822 or one-line as the system has them; its own lists
    # and cache), so no source list, index or cache of the system changes and none is left.
    apt_tmp=$(mktemp -d)
    mkdir -p "$apt_tmp/sources.list.d" "$apt_tmp/lists/partial" "$apt_tmp/cache/archives/partial"
    shopt -s nullglob
    deb822=(/etc/apt/sources.list.d/*.sources)
    one_line=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list)
    shopt -u nullglob
    for file in "${deb822[@]}"; do
        case "$file" in */driftgate-src.sources) continue ;; esac
        cat "$file"
        echo
    done | sed 's/^Types:.*/Types: deb-src/' >"$apt_tmp/sources.list.d/src.sources"
    for file in "${one_line[@]}"; do
        case "$file" in */driftgate-src.list) continue ;; esac
        [ ! -f "$file" ] || sed -n 's/^deb \(.*\)/deb-src \1/p' "$file"
    done >"$apt_tmp/sources.list.d/src.list"
    apt_src=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_tmp/sources.list.d"
        -o "Dir::State::Lists=$apt_tmp/lists" -o "Dir::Cache=$apt_tmp/cache")
    # Its own folders: no root needed, and apt's sandbox user may not enter them.
    apt_src+=(-o "APT::Sandbox::User=$(id -un)")
    apt-get "${apt_src[@]}" update -qq >"$apt_tmp/update.log" 2>&1 \
        || { cat "$apt_tmp/update.log" >&2; exit 1; }
    build=target/vcsim-build
    rm -rf "$build" "$vcsim_bin"
    mkdir -p "$build" "$vcsim_bin"
    (cd "$build" && apt-get "${apt_src[@]}" source -qq --download-only golang-github-vmware-govmomi \
        >download.log 2>&1) \
        || { cat "$build/download.log" >&2; exit 1; }
    # It warns that it has no key for the .dsc's signature: apt checked the files against the
    # signed Sources index already.
    dpkg-source -x "$build"/golang-github-vmware-govmomi_*.dsc "$build/source" >"$build/extract.log" 2>&1 \
        || { cat "$build/extract.log" >&2; exit 1; }
    tree="$build/gopath/src/github.com/vmware/govmomi"
    mkdir -p "$tree"
    ln -s /usr/share/gocode/src/github.com/vmware/govmomi/* "$tree/"
    cp -a "$build/source/vcsim" "$build/source/govc" "$tree/"
    for program in vcsim govc; do
        GO111MODULE=off GOFLAGS= GOPATH="$PWD/$build/gopath:/usr/share/gocode" GOCACHE="$PWD/$build/cache" \
            go build -o "$vcsim_bin/$program" "github.com/vmware/govmomi/$program"
    done
    rm -rf "$build"
    echo "test-deps: built vcsim and govc in $((SECONDS - started)) s" >&2
fi
