#!/usr/bin/env bash
# Builds the Debian package into target/debian/: the static binary (the dist profile, linked
# statically as docs/install.md builds it), then its man pages and shell completions, generated
# by that binary into target/deb-assets/, then `cargo deb` packs them with the systemd units
# and the examples ([package.metadata.deb] in Cargo.toml). Prints the package's path last.
#
#   bash scripts/package-deb.sh        (needs cargo-deb: cargo install --locked cargo-deb)
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-deb >/dev/null || {
    echo "package-deb: cargo-deb is missing: cargo install --locked cargo-deb" >&2
    exit 2
}
target=x86_64-unknown-linux-gnu
RUSTFLAGS="-C target-feature=+crt-static" cargo build --profile dist --locked --target "$target"
bin=${CARGO_TARGET_DIR:-target}/$target/dist/driftgate

# A static binary has no program interpreter; one that has would need the build host's glibc.
if readelf -l "$bin" | grep -q 'INTERP'; then
    echo "package-deb: $bin is linked dynamically" >&2
    exit 1
fi

assets=target/deb-assets
rm -rf "$assets"
mkdir -p "$assets/completions"
"$bin" man "$assets/man"
"$bin" completions bash >"$assets/completions/driftgate"
"$bin" completions zsh >"$assets/completions/_driftgate"
"$bin" completions fish >"$assets/completions/driftgate.fish"

cargo deb --no-build --profile dist --target "$target" --output target/debian/ | tail -n 1
