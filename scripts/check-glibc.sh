#!/usr/bin/env bash
# Fails when a dynamically linked driftgate needs a glibc newer than 2.34 (RHEL 9, Ubuntu
# 22.04: operators' jump hosts) or packed relative relocations (GLIBC_ABI_DT_RELR, 2.36).
# The symbol versions a binary needs come from the libc functions it calls and the linker's
# flags, not from the optimization level, so CI checks its debug binary.
#
#   scripts/check-glibc.sh [BINARY]     (default: the debug binary of this tree)
set -euo pipefail
bin=${1:-${CARGO_TARGET_DIR:-$(dirname "$0")/../target}/debug/driftgate}
[ -x "$bin" ] || { echo "check-glibc: $bin is not built" >&2; exit 2; }
too_new=$(objdump -p "$bin" | grep -oE 'GLIBC_ABI_DT_RELR|GLIBC_2\.(3[5-9]|[4-9][0-9])' | sort -u || true)
if [ -n "$too_new" ]; then
    echo "check-glibc: $bin needs $(echo $too_new): it would not start on glibc 2.34" >&2
    exit 1
fi
