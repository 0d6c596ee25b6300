#!/usr/bin/env bash
# Install what cairn's tests need on Debian 12, fetch the GPX 1.1 schema and
# check for a Swift toolchain. Idempotent: installs only what is missing, and
# runs `apt-get update` only when it has to. Run as root (CI is root).
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
schema="$repo/Tests/Fixtures/schemas/gpx.xsd"
schema_md5=e665d5dc903801fa2df8471f044072f3
packages=(gpsd gpsd-clients libgps-dev libxml2-utils python3 file strace procps ca-certificates gpsbabel gdal-bin tzdata time systemd
          librsvg2-bin   # rsvg-convert: cairn render's pictures to PNG in the tests
          # the board in a box (deploy/board): guest roots (the arm64 one through qemu-user), the
          # emulated boards, their disks read unmounted, and i2c-stub cross-built for arm64
          debootstrap qemu-user-static binfmt-support qemu-system-x86 qemu-system-arm qemu-utils e2fsprogs
          dosfstools mtools busybox-static cpio xz-utils make gcc-aarch64-linux-gnu)
# The page beside exports (issue 31, item 4): Tests/tools/check-page.py loads index.html in
# headless Chromium (DevTools over a pipe: no Python package needed).
packages+=(chromium)
# cairn deliver's transport, in its tests' loopback remotes (issue 31).
packages+=(rclone)
# The fleet recipe (Tests/fleet): PostGIS in a private cluster (DuckDB: pip, below).
packages+=(postgresql-15-postgis-3)

tmp="" prc=/usr/sbin/policy-rc.d own_prc=no
cleanup() { rm -rf "$tmp"; if [ "$own_prc" = yes ]; then rm -f "$prc"; fi; }
trap cleanup EXIT

say() { echo "install-deps: $*"; }
die() { echo "install-deps: ERROR: $*" >&2; exit 1; }

updated=no
apt_update() {  # at most once per run
    [ "$updated" = yes ] && return
    [ "$(id -u)" -eq 0 ] || die "must run as root to use apt-get"
    apt-get update -qq
    updated=yes
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q '^install ok installed$'; }

missing=()
for p in "${packages[@]}"; do
    # the replay tool runs under whatever python3 is on PATH (pyenv etc. is fine)
    if [ "$p" = python3 ] && command -v python3 >/dev/null; then continue; fi
    installed "$p" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
    say "installing: ${missing[*]}"
    apt_update
    # Keep the gpsd package from starting its system daemon (it would take
    # port 2947 and grab devices); our tests start private gpsds. policy-rc.d
    # is honoured by invoke-rc.d and deb-systemd-invoke. Never replace one.
    if [ ! -e "$prc" ]; then
        printf '#!/bin/sh\nexit 101\n' > "$prc"; chmod 755 "$prc"; own_prc=yes
    fi
    apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null
    if [ "$own_prc" = yes ]; then rm -f "$prc"; own_prc=no; fi
else
    say "all packages present"
fi

# Under a running systemd the package enables gpsd.socket (port 2947): stop it.
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then
    systemctl disable --now gpsd.socket gpsd.service >/dev/null 2>&1 || true
fi

# GPX 1.1 schema, from Debian's pytrainer package (not committed: .gitignore).
if [ -f "$schema" ] && [ "$(md5sum < "$schema" | cut -d' ' -f1)" = "$schema_md5" ]; then
    say "schema present: $schema"
else
    tmp=$(mktemp -d)
    chown _apt "$tmp" 2>/dev/null || true  # lets apt download sandboxed, quietly
    # no candidate means the package lists are missing or stale
    apt-cache policy pytrainer 2>/dev/null | grep -q 'Candidate: [0-9]' || apt_update
    (cd "$tmp" && apt-get download -qq pytrainer) || die "apt-get download pytrainer failed"
    dpkg-deb -x "$tmp"/pytrainer_*.deb "$tmp/x"
    got=$(md5sum < "$tmp/x/usr/share/pytrainer/schemas/Topografix_gpx11.xsd" | cut -d' ' -f1)
    [ "$got" = "$schema_md5" ] || die "GPX schema md5 is $got, expected $schema_md5"
    mkdir -p "$(dirname "$schema")"
    cp "$tmp/x/usr/share/pytrainer/schemas/Topografix_gpx11.xsd" "$schema"
    say "schema fetched: $schema"
fi

# Python readers that check cairn's exports (see Tests/tools/check-export.py), into whatever
# python3 is on PATH (the tests run that one). Pinned, so a new release can't change a verdict.
py_pkgs=(garmin-fit-sdk==21.218.0 fitdecode==0.11.0 geojson-validator==0.7.0 fastkml==1.4.0 gpxpy==1.6.2)
if python3 -c 'import garmin_fit_sdk, fitdecode, geojson_validator, fastkml, gpxpy' 2>/dev/null; then
    say "python readers present"
else
    if ! python3 -m pip --version >/dev/null 2>&1; then apt_update; apt-get install -y -qq --no-install-recommends python3-pip </dev/null; fi
    pip_flags=(-q --disable-pip-version-check --root-user-action=ignore)
    # Debian's own python3 is "externally managed" (PEP 668); a pyenv or venv python is not.
    if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        pip_flags+=(--break-system-packages)
    fi
    say "installing python readers: ${py_pkgs[*]}"
    python3 -m pip install "${pip_flags[@]}" "${py_pkgs[@]}" </dev/null || die "pip install ${py_pkgs[*]} failed"
    python3 -c 'import garmin_fit_sdk, fitdecode, geojson_validator, fastkml, gpxpy' || die "python readers still missing after pip install"
fi

# The street-aware attack on privacy zones (Tests/crash/privacy-zones/street-attack.py, issue 38):
# street grids and the rides' routes (numpy, scipy's Dijkstra). Pinned like the readers.
attack_pkgs=(numpy==2.4.6 scipy==1.17.1)
if python3 -c 'import numpy, scipy.sparse.csgraph' 2>/dev/null; then
    say "numpy and scipy present"
else
    if ! python3 -m pip --version >/dev/null 2>&1; then apt_update; apt-get install -y -qq --no-install-recommends python3-pip </dev/null; fi
    attack_flags=(-q --disable-pip-version-check --root-user-action=ignore)
    if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        attack_flags+=(--break-system-packages)
    fi
    say "installing ${attack_pkgs[*]}"
    python3 -m pip install "${attack_flags[@]}" "${attack_pkgs[@]}" </dev/null || die "pip install ${attack_pkgs[*]} failed"
fi
# moto's S3 server for Tests/deliver (moto_server), pinned like the readers above.
moto_pkg="moto[server]==5.2.1"
if command -v moto_server >/dev/null && python3 -c 'import moto, flask' 2>/dev/null; then
    say "moto server present"
else
    if ! python3 -m pip --version >/dev/null 2>&1; then apt_update; apt-get install -y -qq --no-install-recommends python3-pip </dev/null; fi
    moto_flags=(-q --disable-pip-version-check --root-user-action=ignore)
    if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        moto_flags+=(--break-system-packages)
    fi
    say "installing $moto_pkg"
    python3 -m pip install "${moto_flags[@]}" "$moto_pkg" </dev/null || die "pip install $moto_pkg failed"
    command -v moto_server >/dev/null || hash -r
fi
# The KML 2.2 schemas (OGC + gx) ship inside fastkml; tests find them with check-export.py kml-schema-dir.

# The fleet recipe (Tests/fleet, FleetEndToEndTests): DuckDB's python package, pinned; no
# DuckDB extension is ever downloaded (the recipe needs none).
if python3 -c 'import duckdb' 2>/dev/null; then
    say "duckdb present"
else
    if ! python3 -m pip --version >/dev/null 2>&1; then apt_update; apt-get install -y -qq --no-install-recommends python3-pip </dev/null; fi
    fleet_pip=(-q --disable-pip-version-check --root-user-action=ignore)
    if python3 -c 'import sys, sysconfig, os; sys.exit(0 if os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")) else 1)'; then
        fleet_pip+=(--break-system-packages)
    fi
    say "installing duckdb==2.0.1"
    python3 -m pip install "${fleet_pip[@]}" duckdb==2.0.1 </dev/null || die "pip install duckdb==2.0.1 failed"
fi

# Swift can't come from Debian here; it must already be on the machine.
if command -v swift >/dev/null; then
    say "swift: $(swift --version 2>&1 | head -n1)"
elif [ -x /opt/swift/usr/bin/swift ]; then
    say "WARNING: swift is not on PATH, but a toolchain is in /opt/swift. Run:"
    say '    export PATH=/opt/swift/usr/bin:$PATH'
else
    die "no Swift toolchain: 'swift' is not on PATH and /opt/swift/usr/bin/swift does not exist. Install a Swift 6 toolchain (it is not available from Debian) and put it on PATH."
fi
say "done"
