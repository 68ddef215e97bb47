#!/usr/bin/env bash
# debian11_rootfs.sh DIR - the root file system the container tests run
# .NET in (tests/e2e/test_containers.sh): Debian 11's minimal base (glibc
# 2.31), made by debootstrap from Debian's mirror into DIR once and kept
# (DIR/.made); the .NET runtime, the sample and clrprobe are mounted into
# each container, not copied.  Needs root (debootstrap).
set -euo pipefail

DIR=${1:?usage: debian11_rootfs.sh DIR}
STAMP="bullseye minbase, mount points 2"
[[ -f $DIR/.made && $(cat "$DIR/.made") == "$STAMP" ]] && exit 0
rm -rf "$DIR.tmp"
mkdir -p "$(dirname "$DIR")"
if ! debootstrap --variant=minbase bullseye "$DIR.tmp" http://deb.debian.org/debian >"$DIR.log" 2>&1; then
    echo "debian11_rootfs: debootstrap failed (see $DIR.log)" >&2
    rm -rf "$DIR.tmp"
    exit 1
fi
# what podman and the tests mount (test_containers.sh's ct_run), made here
# so that they need not be created at a container's start: a container with
# a user namespace may not write to a root that is root's
touch "$DIR.tmp/etc/hosts" "$DIR.tmp/etc/resolv.conf" "$DIR.tmp/etc/hostname" "$DIR.tmp/run/.containerenv"
mkdir -p "$DIR.tmp/usr/share/dotnet" "$DIR.tmp/app" "$DIR.tmp/opt/clrprobe" "$DIR.tmp/out" "$DIR.tmp/debs"
touch "$DIR.tmp/opt/clrprobe/clrprobe" "$DIR.tmp/opt/clrprobe/libclrprobe.so"
echo "$STAMP" >"$DIR.tmp/.made"
rm -rf "$DIR"
mv "$DIR.tmp" "$DIR"
