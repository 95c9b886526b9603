#!/usr/bin/env bash
# Installs what building and the tests need beyond the Rust toolchain, from Debian's packages:
# a C compiler (libgit2 and zlib are built from their bundled sources; rustc links with it
# too), OpenSSH's server and client (the ssh transport is tested against a throw-away sshd on
# 127.0.0.1), xmllint (JUnit reports are validated against an XSD), Chromium and ChromeDriver
# (the HTML report is tested in a headless browser) and promtool (Prometheus textfiles and
# alert rules), man-db and groff (the man pages are rendered and checked), bash-completion
# (CI installs the Debian package and loads its completion as bash does: scripts/check-deb.sh)
# and util-linux's script (a confirmation prompt is answered on a terminal); then, from PyPI
# into the virtualenv target/test-venv, ansible-core (Ansible inventories are compared with
# `ansible-inventory`'s own resolution).
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
    "$venv/bin/python" - "$@" <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(any(version(name) != wanted for name, wanted in (r.split("==") for r in sys.argv[1:])))
PY
}
if ! installed "${requirements[@]}"; then
    echo "test-deps: installing ${requirements[*]} into $venv" >&2
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "${requirements[@]}"
fi
