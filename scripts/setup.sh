#!/usr/bin/env bash
# setup.sh - installs what clrprobe needs to build and test, idempotently:
# Debian packages (compiler, make, zlib headers, jq for the tests), a check
# that the .NET SDK is present, and the tests' reader of .heapsnapshot files
# (Chrome DevTools' heap snapshot code from the npm registry, pinned by
# tests/tools/heapsnapshot/package-lock.json, into build/tools).  Safe to run
# again; does nothing when all is already there.
set -euo pipefail

PACKAGES=(gcc make libc6-dev zlib1g-dev jq protobuf-compiler golang-go chromium time)
command -v npm >/dev/null || PACKAGES+=(nodejs npm)

missing=()
for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    echo "setup: installing Debian packages: ${missing[*]}"
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null; then SUDO=sudo; else
            echo "setup: need root to install ${missing[*]}: run 'apt-get install ${missing[*]}' as root" >&2
            exit 1
        fi
    else
        SUDO=
    fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ! command -v dotnet >/dev/null; then
    echo "setup: the .NET SDK ('dotnet') is not on PATH; install the .NET SDK 8 or newer and run again" >&2
    exit 1
fi
if ! dotnet --list-sdks 2>/dev/null | grep -q .; then
    echo "setup: 'dotnet' is present but no .NET SDK is installed; install the .NET SDK 8 or newer" >&2
    exit 1
fi

# The heap snapshot test's independent reader (tests/e2e/test_heap_formats.sh).
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HS_SRC=$ROOT/tests/tools/heapsnapshot
HS_DIR=$ROOT/build/tools/heapsnapshot
if ! cmp -s "$HS_SRC/package-lock.json" "$HS_DIR/package-lock.json" ||
   [[ ! -d $HS_DIR/node_modules/heap-snapshot-toolkit ]]; then
    echo "setup: installing the heap snapshot reader for the tests (npm: heap-snapshot-toolkit)"
    mkdir -p "$HS_DIR"
    cp "$HS_SRC/package.json" "$HS_SRC/package-lock.json" "$HS_DIR/"
    if ! (cd "$HS_DIR" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
        rm -f "$HS_DIR/package-lock.json"
        echo "setup: npm could not install heap-snapshot-toolkit (see above)" >&2
        exit 1
    fi
fi
cp "$HS_SRC/summary.mjs" "$HS_DIR/"
