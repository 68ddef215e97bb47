#!/usr/bin/env bash
# setup.sh - installs what clrprobe needs to build and test, idempotently:
# Debian packages (compiler, make, zlib headers, jq for the tests), a check
# that the .NET SDK is present, the C library the product is built against
# (build/sysroot: Debian 11's, scripts/sysroot.sh), and the tests' readers of .heapsnapshot and
# Trace Event Format files (Chrome DevTools' own code from the npm registry,
# pinned by tests/tools/*/package-lock.json, into build/tools) and of the
# runtime's metrics (dotnet-counters from NuGet, pinned).  Safe to run
# again; does nothing when all is already there.
set -euo pipefail

PACKAGES=(gcc make libc6-dev zlib1g-dev debian-archive-keyring jq protobuf-compiler golang-go chromium time python3
          podman runc debootstrap libmicrohttpd-dev)
# (installed without the packages they recommend: Prometheus would bring its node exporter)
PACKAGES_ALONE=(prometheus)
command -v npm >/dev/null || PACKAGES+=(nodejs npm)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${PACKAGES[@]}"; do
    installed "$p" || missing+=("$p")
done
missing_alone=()
for p in "${PACKAGES_ALONE[@]}"; do
    installed "$p" || missing_alone+=("$p")
done

if ((${#missing[@]} + ${#missing_alone[@]})); then
    echo "setup: installing Debian packages: ${missing[*]} ${missing_alone[*]}"
    if [[ $(id -u) -ne 0 ]]; then
        if command -v sudo >/dev/null; then SUDO=sudo; else
            echo "setup: need root to install ${missing[*]} ${missing_alone[*]}: run 'apt-get install" \
                "${missing[*]}' and 'apt-get install --no-install-recommends ${missing_alone[*]}' as root" >&2
            exit 1
        fi
    else
        SUDO=
    fi
    $SUDO apt-get update -qq
    if ((${#missing[@]})); then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
    if ((${#missing_alone[@]})); then
        DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing_alone[@]}" >/dev/null
    fi
fi

if ! command -v dotnet >/dev/null; then
    echo "setup: the .NET SDK ('dotnet') is not on PATH; install the .NET SDK 8 or newer and run again" >&2
    exit 1
fi
if ! dotnet --list-sdks 2>/dev/null | grep -q .; then
    echo "setup: 'dotnet' is present but no .NET SDK is installed; install the .NET SDK 8 or newer" >&2
    exit 1
fi

ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/scripts/sysroot.sh" "$ROOT/build/sysroot"

# The tests' independent readers, from the npm registry, each pinned by its
# package-lock.json, into build/tools/NAME: Chrome DevTools' heap snapshot
# code (tests/e2e/test_heap_formats.sh) and the trace model of DevTools'
# Performance panel (tests/e2e/test_timeline.sh).
install_reader() {   # NAME PACKAGE-DIR-IN-node_modules SCRIPT
    local src=$ROOT/tests/tools/$1 dir=$ROOT/build/tools/$1
    if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" || [[ ! -d $dir/node_modules/$2 ]]; then
        echo "setup: installing a reader for the tests (npm: $2)"
        mkdir -p "$dir"
        cp "$src/package.json" "$src/package-lock.json" "$dir/"
        if ! (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >/dev/null); then
            rm -f "$dir/package-lock.json"
            echo "setup: npm could not install $2 (see above)" >&2
            exit 1
        fi
    fi
    cp "$src/$3" "$dir/"
}
install_reader heapsnapshot heap-snapshot-toolkit summary.mjs
install_reader timeline @paulirish/trace_engine summary.mjs

# dotnet-counters, Microsoft's reader of the runtime's metrics, from NuGet
# (a .NET tool, pinned), into build/tools/dotnet-counters: the second tool
# `clrprobe counters` is checked against (tests/e2e/test_counters.sh).
DOTNET_COUNTERS_VERSION=10.0.750501
counters_dir=$ROOT/build/tools/dotnet-counters
if [[ ! -x $counters_dir/dotnet-counters ]] ||
    ! grep -qx "$DOTNET_COUNTERS_VERSION" "$counters_dir/.version" 2>/dev/null; then
    echo "setup: installing dotnet-counters $DOTNET_COUNTERS_VERSION for the tests (NuGet)"
    rm -rf "$counters_dir"
    if ! dotnet tool install dotnet-counters --tool-path "$counters_dir" \
        --version "$DOTNET_COUNTERS_VERSION" >/dev/null; then
        echo "setup: dotnet could not install dotnet-counters (see above)" >&2
        exit 1
    fi
    echo "$DOTNET_COUNTERS_VERSION" >"$counters_dir/.version"
fi
