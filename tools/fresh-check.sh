#!/usr/bin/env bash
# tools/fresh-check.sh [--root DIR] [--shared DIR] [--keep] [--reuse] [--probe-remove PKG]
#                      [--deps-only] [--arch aarch64]
#
# Proves the README's quick start on a really fresh Debian 12: makes a minimal
# Debian 12 (bookworm) root with debootstrap (--variant=minbase) from the
# mirror this machine's own apt sources name, copies the repository (a clone
# of its committed HEAD, as CI sees it) and the shared models into it, and
# runs the README's two commands inside it with chroot (/proc, /sys, /dev and
# /dev/pts mounted):
#
#   tools/quickstart.sh     the main job on the built-in example
#   tools/test.sh           every test, under ASan+UBSan
#
# printing each command's exit status and time, and the test summary line.
# A manual check, too long for CI (about 35 minutes on two cores: packages,
# then the sanitized build). Needs root and network access to the mirror.
#
# Options:
#   --root DIR          where the fresh root goes (default /var/tmp/litegraph-fresh;
#                       deleted and made anew unless --reuse)
#   --shared DIR        the shared models to copy (default ../shared beside the repo)
#   --keep              leave the root in place afterwards (default: delete it)
#   --reuse             reuse an existing root made by this script (skips
#                       debootstrap; the repository is copied anew)
#   --deps-only         run only tools/install-deps.sh inside the root (every
#                       package of .ci/debian-packages.txt installed and every
#                       toolchain probed, CLI11's and the firmware's included:
#                       about 10 minutes, most of it downloads), not the builds
#   --arch aarch64      the ARM64 commands instead of the quick start's:
#                       tools/test.sh --arch aarch64 (its packages installed
#                       by tools/install-deps.sh --arch aarch64, the cross
#                       build's subset run under qemu-aarch64: about 35 minutes
#                       on two cores); with --deps-only, only
#                       tools/install-deps.sh --arch aarch64
#   --probe-remove PKG  afterwards, remove the Debian package PKG inside the root
#                       and show that `tools/install-deps.sh --probe-only` fails
#                       naming it (e.g. libstdc++-arm-none-eabi-newlib)
# Logs: DIR/fresh-check/{debootstrap,quickstart,test,probe}.log.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fresh=/var/tmp/litegraph-fresh
shared="$repo/../shared"
keep=0 reuse=0 probe_remove="" deps_only=0 arch=""
usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
while [[ $# -gt 0 ]]; do
    case "$1" in
        --root) fresh="$2"; shift 2 ;;
        --shared) shared="$2"; shift 2 ;;
        --keep) keep=1; shift ;;
        --reuse) reuse=1; shift ;;
        --probe-remove) probe_remove="$2"; shift 2 ;;
        --deps-only) deps_only=1; shift ;;
        --arch)
            [[ "${2:-}" == aarch64 ]] || { echo "tools/fresh-check.sh: --arch takes aarch64" >&2; exit 2; }
            arch=aarch64; shift 2 ;;
        -h | --help) usage; exit 0 ;;
        *) echo "tools/fresh-check.sh: unknown argument: $1 (see --help)" >&2; exit 2 ;;
    esac
done
[[ $(id -u) -eq 0 ]] || { echo "tools/fresh-check.sh: needs root (debootstrap, chroot, mount)" >&2; exit 2; }
[[ "$fresh" == /* && "$fresh" != / ]] || { echo "tools/fresh-check.sh: --root must be an absolute path other than /" >&2; exit 2; }

# The Debian mirror this machine uses: the first URI of its apt sources that
# serves bookworm's main component (deb822 .sources or one-line sources.list).
mirror() {
    local f
    for f in /etc/apt/sources.list.d/*.sources; do
        [[ -r "$f" ]] || continue
        awk 'BEGIN { RS = ""; FS = "\n" }
             /(^|\n)Suites:[^\n]*bookworm( |\n|$)/ && /(^|\n)Components:[^\n]*main/ {
                 for (i = 1; i <= NF; i++) if ($i ~ /^URIs:/) { split($i, u, " "); print u[2]; exit } }' "$f"
    done
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
        [[ -r "$f" ]] || continue
        awk '$1 == "deb" && $0 ~ / bookworm / && $0 ~ / main/ { for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { print $i; exit } }' "$f"
    done
}
url="$(mirror | head -1)"
[[ -n "$url" ]] || { echo "tools/fresh-check.sh: no bookworm main source in /etc/apt/sources*" >&2; exit 1; }
[[ -d "$shared" ]] || { echo "tools/fresh-check.sh: no shared models at $shared (give --shared)" >&2; exit 2; }

logs="$fresh/fresh-check"
mounted=()
cleanup() {
    local m
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
    if ((!keep)) && [[ -f "$fresh/.litegraph-fresh-root" ]]; then
        cp -r "$logs" "/var/tmp/litegraph-fresh-logs" 2>/dev/null || true
        rm -rf --one-file-system "$fresh"
        echo "logs kept in /var/tmp/litegraph-fresh-logs"
    fi
}
trap cleanup EXIT

start=$SECONDS
if ((reuse)) && [[ -f "$fresh/.litegraph-fresh-root" ]]; then
    echo "== reusing the root at $fresh"
else
    if [[ -e "$fresh" ]]; then
        [[ -f "$fresh/.litegraph-fresh-root" ]] ||
            { echo "tools/fresh-check.sh: $fresh exists and was not made by this script" >&2; exit 2; }
        rm -rf --one-file-system "$fresh"
    fi
    command -v debootstrap >/dev/null || {
        echo "== installing debootstrap"
        apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap </dev/null
    }
    mkdir -p "$fresh"
    touch "$fresh/.litegraph-fresh-root"
    mkdir -p "$logs"
    echo "== debootstrap --variant=minbase bookworm $fresh (mirror from this machine's apt sources)"
    t=$SECONDS
    if ! debootstrap --variant=minbase bookworm "$fresh" "$url" >"$logs/debootstrap.log" 2>&1; then
        tail -20 "$logs/debootstrap.log"
        echo "tools/fresh-check.sh: debootstrap failed" >&2
        exit 1
    fi
    echo "   made in $((SECONDS - t)) s: $(chroot "$fresh" dpkg-query -W | wc -l) packages"
fi
mkdir -p "$logs"
cp /etc/resolv.conf "$fresh/etc/resolv.conf" 2>/dev/null || true

echo "== copying the repository (clone of HEAD $(git -C "$repo" rev-parse --short HEAD)) and the shared models"
rm -rf "$fresh/src"
mkdir -p "$fresh/src"
git clone -q --no-hardlinks "$repo" "$fresh/src/litegraph"
cp -r "$shared" "$fresh/src/shared"
chmod -R a-w "$fresh/src/shared"

for m in proc sys dev dev/pts; do
    mkdir -p "$fresh/$m"
    case "$m" in
        proc) mount -t proc proc "$fresh/proc" ;;
        sys) mount -t sysfs sys "$fresh/sys" ;;
        dev) mount --bind /dev "$fresh/dev" ;;
        dev/pts) mount --bind /dev/pts "$fresh/dev/pts" ;;
    esac
    mounted+=("$fresh/$m")
done

# in_root LOG COMMAND...: runs COMMAND in the repository inside the root with a
# clean environment; prints its exit status and time.
results=()
in_root() {
    local log="$1" t=$SECONDS rc=0
    shift
    echo "== inside the fresh root: $*"
    chroot "$fresh" /usr/bin/env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        LANG=C.UTF-8 TERM=dumb /bin/bash -c 'cd /src/litegraph && "$@"' bash "$@" </dev/null >"$log" 2>&1 || rc=$?
    local line="$* -> exit $rc in $((SECONDS - t)) s"
    results+=("$line")
    echo "   $line"
    return $rc
}
rc_all=0
if ((deps_only)); then
    in_root "$logs/deps.log" tools/install-deps.sh ${arch:+--arch "$arch"} || rc_all=1
    grep -E '^probe|every probe|tools/install-deps.sh:' "$logs/deps.log" | sed 's/^/   | /' || true
    echo "== summary ($((SECONDS - start)) s in all)"
    printf '   %s\n' "${results[@]}"
    exit $rc_all
fi
if [[ -z "$arch" ]]; then
    in_root "$logs/quickstart.log" tools/quickstart.sh || rc_all=1
    tail -12 "$logs/quickstart.log" | sed 's/^/   | /'
fi
in_root "$logs/test.log" tools/test.sh ${arch:+--arch "$arch"} || rc_all=1
grep -E '^[0-9]+% tests passed|tests? (failed|skipped)|^\s+[0-9]+ - |Not Run|\*\*\*Skipped|build took|done in' "$logs/test.log" | sed 's/^/   | /' || true
grep -E 'SKIPPED|skipped' "$logs/test.log" | sort | uniq -c | head -20 | sed 's/^/   | skip: /' || true

if [[ -n "$probe_remove" ]]; then
    echo "== removing $probe_remove inside the root, then tools/install-deps.sh --probe-only"
    chroot "$fresh" env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q "$probe_remove" </dev/null >"$logs/probe.log" 2>&1
    prc=0
    in_root "$logs/probe-only.log" tools/install-deps.sh --probe-only || prc=$?
    sed 's/^/   | /' "$logs/probe-only.log"
    if ((prc == 0)) || ! grep -q "'$probe_remove'" "$logs/probe-only.log"; then
        echo "   the probes did not name $probe_remove" >&2
        rc_all=1
    else
        echo "   the probes failed, naming $probe_remove, as they should"
    fi
fi

echo "== summary ($((SECONDS - start)) s in all)"
printf '   %s\n' "${results[@]}"
exit $rc_all
