#!/usr/bin/env bash
# CI: the Debian package as an operator gets it. Builds it (scripts/package-deb.sh), installs it
# with dpkg on this machine (CI runs as root), then: the binary runs, `man` finds its pages,
# bash-completion's own loader finds and loads the completion, and the systemd units verify
# against the installed binary. Purges the package again unless it was installed before.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "check-deb: dpkg -i needs root" >&2; exit 2; }
command -v cargo-deb >/dev/null || cargo install --locked --quiet cargo-deb@^3

deb=$(bash scripts/package-deb.sh)
echo "check-deb: $deb, $(du -k "$deb" | cut -f1) KiB" >&2
dpkg-deb --info "$deb" >/dev/null

# What installing makes beside the package's files (the unit's user and directories) is taken
# away again with it, unless it was there before.
installed_before=$(dpkg-query -W -f '${Status}' driftgate 2>/dev/null || true)
user_before=$(getent passwd driftgate || true)
made_dirs=()
for dir in /etc/driftgate /etc/driftgate/credentials /var/lib/driftgate /var/lib/driftgate/results; do
    [ -e "$dir" ] || made_dirs=("$dir" "${made_dirs[@]}")
done
# The BMC account file of an older install, made for the postinst to warn about.
old_env=/etc/driftgate/credentials.env
made_old_env=
cleanup() {
    [ -z "$made_old_env" ] || rm -f "$old_env"
    case $installed_before in
    *" installed") return ;;
    esac
    dpkg --purge driftgate >/dev/null
    [ -n "$user_before" ] || userdel driftgate 2>/dev/null || true
    for dir in "${made_dirs[@]}"; do rmdir "$dir" 2>/dev/null || true; done
}
trap cleanup EXIT
# An older install's account file, which nothing reads now: the postinst warns (and goes on).
if [ ! -e "$old_env" ]; then
    mkdir -p /etc/driftgate
    : >"$old_env"
    made_old_env=yes
fi
# A minimal image may exclude man pages from every package (path-exclude): not ours.
installing=$(dpkg --path-include='/usr/share/man/man1/driftgate*' -i "$deb" 2>&1 >/dev/null) ||
    { echo "check-deb: dpkg -i: $installing" >&2; exit 1; }
[ -z "$made_old_env" ] || rm -f "$old_env"
grep -q "$old_env is no longer read" <<<"$installing" ||
    { echo "check-deb: the postinst does not warn about $old_env: $installing" >&2; exit 1; }

version=$(/usr/bin/driftgate --version)
[ "$version" = "driftgate $(dpkg-deb -f "$deb" Version | cut -d- -f1)" ] ||
    { echo "check-deb: /usr/bin/driftgate --version says '$version'" >&2; exit 1; }
for page in driftgate driftgate-gate driftgate-gate-pre driftgate-check; do
    man -w "$page" >/dev/null || { echo "check-deb: man -w $page finds nothing" >&2; exit 1; }
done
MANPAGER=cat MANWIDTH=80 man driftgate-gate | grep -q 'Examples:' ||
    { echo "check-deb: man driftgate-gate shows no examples" >&2; exit 1; }

# bash-completion loads a command's completion by its name on first use, from its own path.
completed=$(bash --norc --noprofile -c '
    source /usr/share/bash-completion/bash_completion
    _comp_load driftgate 2>/dev/null || __load_completion driftgate || exit 1
    complete -p driftgate >/dev/null || exit 1
    COMP_WORDS=(driftgate ga); COMP_CWORD=1; COMP_LINE="driftgate ga"; COMP_POINT=12
    function=$(complete -p driftgate | sed -n "s/.* -F \([^ ]*\) .*/\1/p")
    "$function" driftgate ga driftgate
    echo "${COMPREPLY[*]}"')
[ "$completed" = gate ] || { echo "check-deb: bash completes 'driftgate ga' as '$completed'" >&2; exit 1; }
for file in /usr/share/zsh/vendor-completions/_driftgate /usr/share/fish/vendor_completions.d/driftgate.fish; do
    [ -s "$file" ] || { echo "check-deb: $file is missing" >&2; exit 1; }
done

# The units as installed, against the installed binary (the store pull's git need not exist).
units=/usr/lib/systemd/system
if command -v systemd-analyze >/dev/null; then
    # The night and the store's pull and push it Requires=/Wants= (verify fails on a unit a
    # dependency names that is not installed).
    services=(driftgate-nightly.service driftgate-store-pull.service driftgate-store-push.service)
    said=$(systemd-analyze verify "$units/driftgate-nightly.timer" "${services[@]/#/$units/}" 2>&1 || true)
    if grep 'driftgate-' <<<"$said" | grep -v '/usr/bin/git'; then
        echo "check-deb: systemd-analyze verify: $said" >&2
        exit 1
    fi
    # The hardening as installed: an exposure of 2.5 or less each (tests/it/systemd_unit.rs).
    for service in "${services[@]}"; do
        rated=$(systemd-analyze security --offline=yes --threshold=25 --no-pager "$units/$service" 2>&1) ||
            { echo "check-deb: systemd-analyze security $service: $(tail -n 1 <<<"$rated")" >&2; exit 1; }
    done
    # Only the night loads the BMC account: the units that run git have no credentials.
    if grep -l '^LoadCredential=' "$units/driftgate-store-pull.service" "$units/driftgate-store-push.service"; then
        echo "check-deb: a unit that runs git loads the BMC account" >&2
        exit 1
    fi
fi
# The BMC account's folder, which the unit loads credentials from, is root's alone.
if command -v systemd-tmpfiles >/dev/null; then
    mode=$(stat -c '%a %U' /etc/driftgate/credentials)
    [ "$mode" = "700 root" ] || { echo "check-deb: /etc/driftgate/credentials is $mode" >&2; exit 1; }
    # The results as the unit's UMask=0077 makes what is in them: the driftgate user's alone.
    mode=$(stat -c '%a %U' /var/lib/driftgate/results)
    [ "$mode" = "700 driftgate" ] || { echo "check-deb: /var/lib/driftgate/results is $mode" >&2; exit 1; }
fi
echo "check-deb: installed, ran $version, found its man pages and bash completion" >&2
