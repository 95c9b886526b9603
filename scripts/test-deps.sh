#!/usr/bin/env bash
# Installs what building and the tests need beyond the Rust toolchain, from Debian's packages:
# a C compiler (libgit2 and zlib are built from their bundled sources; rustc links with it
# too), OpenSSH's server and client (the ssh transport is tested against a throw-away sshd on
# 127.0.0.1), xmllint (JUnit reports are validated against an XSD), Chromium and ChromeDriver
# (the HTML report is tested in a headless browser) and promtool (Prometheus textfiles and
# alert rules), man-db and groff (the man pages are rendered and checked), bash-completion
# (CI installs the Debian package and loads its completion as bash does: scripts/check-deb.sh),
# util-linux's script (a confirmation prompt is answered on a terminal) and python3-libvirt
# (for sushy-tools, below); then, from PyPI into the virtualenv target/test-venv, ansible-core
# (Ansible inventories are compared with `ansible-inventory`'s own resolution), and into
# target/sushy-venv, sushy-tools (the OpenStack Redfish emulator, over libvirt's test driver:
# an independent Redfish server whose BIOS settings can be changed).
# `--build`: only what building needs (examples/run.sh, scripts/bench.sh).
# Safe to run repeatedly: it installs only what is missing.
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

if [ ${#missing[@]} -gt 0 ]; then
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || { echo "test-deps: ${missing[*]} missing and this is not root; install them" >&2; exit 1; }
        sudo=sudo
    fi
    export DEBIAN_FRONTEND=noninteractive
    echo "test-deps: installing ${missing[*]}" >&2
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ "${1-}" = "--build" ] && exit 0

# PyPI tools, pinned, in a virtualenv of the checkout (tests/it/common/ansible.rs knows the
# path). Checked by installed version, so a second run costs a fraction of a second.
venv=target/test-venv
requirements=("ansible-core==2.19.14")
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
