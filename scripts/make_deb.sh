#!/usr/bin/env bash
# make_deb.sh BUILD [OUTDIR] - the Debian package of what BUILD holds (`make deb`):
# `make install` into a staging directory under PREFIX=/usr, a control file
# whose version is the command's own (--version: the release and the commit
# it was built from), then dpkg-deb.  Writes OUTDIR (default BUILD)/
# clrprobe_VERSION_amd64.deb and prints its path.
set -euo pipefail

BUILD=${1:?usage: make_deb.sh BUILD [OUTDIR]}
OUTDIR=$(cd "${2:-$BUILD}" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

# "clrprobe 0.1.0 (built from 7207187-dirty; runs on glibc 2.28 or later)"
line=$("$BUILD/clrprobe" --version)
release=$(sed -n 's/^clrprobe \([0-9][0-9.]*\) .*/\1/p' <<<"$line")
from=$(sed -n 's/.*(built from \([0-9a-z-]*\);.*/\1/p' <<<"$line")
[[ -n $release ]] || { echo "make_deb: cannot read the version from '$line'" >&2; exit 1; }
# a Debian version: no '-' (that would start a Debian revision)
version=$release${from:++g${from//-/.}}
if [[ $line != *"glibc 2.28 or later"* ]]; then
    echo "make_deb: $BUILD/clrprobe was built against this machine's C library, not build/sysroot: run 'make setup' first" >&2
    exit 1
fi

staging=$(mktemp -d)
trap 'rm -rf "$staging"' EXIT
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory install BUILD="$BUILD" PREFIX=/usr DESTDIR="$staging/root" >/dev/null
mkdir "$staging/root/DEBIAN"
cat >"$staging/root/DEBIAN/control" <<EOF
Package: clrprobe
Version: $version
Architecture: amd64
Maintainer: clrprobe developers <clrprobe@localhost>
Installed-Size: $(du -sk "$staging/root/usr" | cut -f1)
Depends: libc6 (>= 2.28), zlib1g (>= 1:1.2.0)
Suggests: libmicrohttpd12
Section: devel
Priority: optional
Description: profiler for .NET (CoreCLR) programs on Linux
 clrprobe loads an agent into a .NET process, at launch or into one that is
 already running, records CPU samples, allocations, the heap, exceptions,
 GCs and traced calls into a crash-safe trace file, and turns the trace into
 reports: text, flame graphs (html), speedscope, pprof, Chrome's trace
 format and heap snapshots. Its counters and serve commands show the
 runtime's own metrics; serve (for Prometheus and pprof scrapers) loads
 libmicrohttpd when it starts.
EOF
out="$OUTDIR/clrprobe_${version}_amd64.deb"
rm -f "$out"
dpkg-deb --root-owner-group -Zxz --build "$staging/root" "$out" >/dev/null
echo "$out"
