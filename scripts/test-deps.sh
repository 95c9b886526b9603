#!/usr/bin/env bash
# Installs what building and the tests need beyond the Rust toolchain, from Debian's packages:
# a C compiler (libgit2 and zlib are built from their bundled sources; rustc links with it
# too), OpenSSH's server and client (the ssh transport is tested against a throw-away sshd on
# 127.0.0.1), xmllint (JUnit reports are validated against an XSD), Chromium and ChromeDriver
# (the HTML report is tested in a headless browser), promtool (Prometheus textfiles and
# alert rules) and util-linux's script (a confirmation prompt is answered on a terminal).
# `--build`: only what building needs (examples/run.sh, scripts/bench.sh).
# Safe to run repeatedly: it installs only what is missing.
set -euo pipefail
case "${1-}" in
"" | --build) ;;
*) echo "usage: bash scripts/test-deps.sh [--build]" >&2; exit 2 ;;
esac

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
    "script bsdutils"
)
missing=()
for entry in "${needed[@]}"; do
    read -r command package <<<"$entry"
    if ! command -v "$command" >/dev/null 2>&1 && [ ! -x "$command" ]; then
        case " ${missing[*]-} " in *" $package "*) ;; *) missing+=("$package") ;; esac
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "test-deps: ${missing[*]} missing and this is not root; install them" >&2; exit 1; }
    sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
echo "test-deps: installing ${missing[*]}" >&2
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
