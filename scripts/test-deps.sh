#!/usr/bin/env bash
# Installs what the tests need beyond the Rust toolchain: OpenSSH's server (the ssh transport
# is tested against a throw-away sshd on 127.0.0.1) and client. Safe to run repeatedly.
set -euo pipefail

if [ -x /usr/sbin/sshd ] && command -v ssh >/dev/null && command -v ssh-keygen >/dev/null; then
    exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "test-deps: openssh-server is missing and this is not root; install it" >&2; exit 1; }
    sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends openssh-server openssh-client >/dev/null
