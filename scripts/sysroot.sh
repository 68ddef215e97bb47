#!/usr/bin/env bash
# sysroot.sh DIR - makes the C library the product is built against: the
# glibc, kernel and zlib headers and libraries of Debian 11 (glibc 2.31),
# and libmicrohttpd's header (`clrprobe serve` loads the library when it
# runs: src/serve/http.c), unpacked from Debian's own packages into DIR, so that `clrprobe` and
# `libclrprobe.so` run where .NET does (RHEL 8's glibc 2.28 and later; the
# tests check that no symbol newer than 2.28 is used).  Called by setup.sh;
# does nothing when DIR is already made from the same package list.
set -euo pipefail

DIR=${1:?usage: sysroot.sh DIR}
SUITE=bullseye
KEYRING=/usr/share/keyrings/debian-archive-bullseye-stable.gpg
PACKAGES=(libc6 libc6-dev linux-libc-dev libcrypt1 libcrypt-dev zlib1g zlib1g-dev libmicrohttpd-dev)
STAMP="$SUITE ${PACKAGES[*]}"

[[ -f $DIR/.made && $(cat "$DIR/.made") == "$STAMP" ]] && exit 0
[[ -f $KEYRING ]] || { echo "sysroot: $KEYRING is missing: install the Debian package debian-archive-keyring" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/state/lists/partial" "$work/cache/archives/partial" "$work/debs" "$work/root"
echo "deb [signed-by=$KEYRING] http://deb.debian.org/debian $SUITE main" >"$work/sources.list"
: >"$work/status"
# apt with its own lists and cache: the machine's own apt state is untouched
apt_private=(-o "Dir::Etc::SourceList=$work/sources.list" -o Dir::Etc::SourceParts=-
             -o "Dir::State=$work/state" -o "Dir::State::status=$work/status" -o "Dir::Cache=$work/cache"
             -o Debug::NoLocking=1 -qq)
# (as root apt would fetch as user _apt, who cannot write to our mktemp directory)
[[ $(id -u) -eq 0 ]] && apt_private+=(-o APT::Sandbox::User=root)
echo "sysroot: fetching Debian 11's C library (${PACKAGES[*]}) into $DIR"
apt-get "${apt_private[@]}" update
(cd "$work/debs" && apt-get "${apt_private[@]}" download "${PACKAGES[@]}")
for deb in "$work"/debs/*.deb; do
    dpkg-deb -x "$deb" "$work/root"
done
# Links to absolute paths (libz.so -> /lib/...) would lead the linker to the
# machine's own libraries: make them relative, inside the sysroot.
(cd "$work/root" && find . -type l | while read -r link; do
    target=$(readlink "$link")
    if [[ $target == /* ]]; then
        ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" ".$target")" "$link"
    fi
done)
[[ -f $work/root/usr/include/stdio.h && -f $work/root/usr/lib/x86_64-linux-gnu/libz.so ]] ||
    { echo "sysroot: the unpacked packages lack stdio.h or libz.so" >&2; exit 1; }
echo "$STAMP" >"$work/root/.made"
rm -rf "$DIR"
mkdir -p "$(dirname "$DIR")"
mv "$work/root" "$DIR"
