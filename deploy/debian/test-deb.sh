#!/usr/bin/env bash
# Tries the cairn package the way a board gets it, in a Debian 13 chroot of the package's
# architecture (arm64 runs under qemu-user through binfmt_misc): lintian, install, the service's
# own command started and stopped as its user, upgrade with a changed conffile, remove, purge,
# reinstall. A recorded trip must survive all of it. Root only.
#   deploy/debian/test-deb.sh [arm64|amd64]     (default arm64; needs .build/deb/cairn_*_ARCH.deb
#                                               and the build root from deploy/build-aarch64.sh)
# CAIRN_TEST_SUITE=bookworm tries it on Debian 12 instead (Raspberry Pi OS's older base).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
arch=${1:-arm64}
say() { echo "test-deb[$arch ${CAIRN_TEST_SUITE:-trixie}]: $*"; }
die() { echo "test-deb[$arch ${CAIRN_TEST_SUITE:-trixie}]: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root"

version=$(sed -n 's/^let cairnVersion = "\(.*\)"$/\1/p' "$repo/Sources/cairn/Console.swift")
deb=$repo/.build/deb/cairn_${version}_${arch}.deb
[ -f "$deb" ] || die "no $deb: run deploy/build-aarch64.sh"
cache=${CAIRN_CACHE:-/var/cache/cairn}
build_root=$cache/trixie-root
# The build root and this test's cached chroot are shared with other runs: one at a time.
mkdir -p "$cache"
exec 9>"$cache/trixie-root.lock"
flock 9
[ -f "$build_root/.cairn-root" ] || die "no build root at $build_root: run deploy/build-aarch64.sh"
suite=${CAIRN_TEST_SUITE:-trixie}
root=$repo/.build/deb-test-root-$arch$([ "$suite" = trixie ] || echo "-$suite")
if [ "$arch" = arm64 ]; then bash "$repo/Tests/tools/aarch64-binfmt.sh"; fi

mounted=() pids=()
cleanup() {
    local i
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[$i]}" 2>/dev/null || true; done
}
trap cleanup EXIT
mount_proc() { mountpoint -q "$1/proc" || { mount -t proc proc "$1/proc"; mounted+=("$1/proc"); }; }
in_build_root() { chroot "$build_root" /usr/bin/env -i PATH=/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
in_test() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"; }

# 1. lintian (trixie's), with the package's own overrides; any error or warning fails.
mount_proc "$build_root"
mkdir -p "$build_root/tmp/deb" && rm -f "$build_root/tmp/deb/"*.deb && cp "$deb" "$build_root/tmp/deb/"
lint=$(in_build_root lintian --fail-on error,warning --pedantic --show-overrides "/tmp/deb/$(basename "$deb")" 2>&1 \
       | grep -v "running with root privileges") || { echo "$lint" >&2; die "lintian"; }
tags=$(echo "$lint" | grep -E '^[EWIPXO]: ' | sort -u | tr '\n' ' ')
say "lintian: no errors or warnings; ${tags:-no tags} (O: overridden, explained in deploy/debian/lintian-overrides)"

# 2. The chroot: Debian minbase with systemd (for systemd-analyze), gpsd (the unit wants it)
#    and man-db (systemd-analyze verify checks the unit's man: documentation link). The fresh
#    debootstrap is cached outside the checkout ($CAIRN_CACHE, default /var/cache/cairn), keyed by
#    its architecture, suite, packages and archive; every run works on a new copy of it, so no run
#    sees what an earlier one left.
mirror=$(sed -n 's/^deb \([^ ]*\) trixie main$/\1/p' "$build_root/etc/apt/sources.list")
test_pkgs=systemd,gpsd,man-db
pristine_key=$(echo "$arch $suite $test_pkgs $mirror minbase" | sha256sum | cut -c1-16)
pristine=$cache/deb-test-root-$arch-$suite
if [ "$(cat "$pristine/.cairn-test-root" 2>/dev/null)" != "$pristine_key" ] \
        || [ -n "$(find "$pristine/.cairn-test-root" -mtime +30 2>/dev/null)" ]; then
    rm -rf "$pristine"
    say "debootstrap $arch $suite into $pristine (arm64: under emulation, several minutes)"
    debootstrap --variant=minbase --arch="$arch" --include="$test_pkgs" "$suite" "$pristine" "$mirror" \
        >"$repo/.build/debootstrap-test-$arch-$suite.log" 2>&1 || die "debootstrap failed (see .build/debootstrap-test-$arch-$suite.log)"
    echo "$pristine_key" >"$pristine/.cairn-test-root"
fi
# A run killed before its cleanup may have left /proc mounted in the old copy.
for m in $(findmnt -rn -o TARGET | grep "^$root/" | sort -r || true); do umount -l "$m"; done
rm -rf "$root"
cp -a "$pristine" "$root"
mount_proc "$root"
if [ ! -x "$root/usr/bin/man" ]; then
    in_test apt-get install -y -qq --no-install-recommends man-db >/dev/null || die "cannot install man-db in $root"
fi
in_test dpkg -P cairn >/dev/null 2>&1 || true
in_test userdel cairn 2>/dev/null || true
rm -rf "$root/var/lib/cairn" "$root/tmp/deb" "$root/run/cairn"
mkdir -p "$root/tmp/deb"
cp "$deb" "$root/tmp/deb/"
upgrade_version=$version+test1
# The upgrade: the same binary under a higher version, packaged in the build root as
# deploy/build-aarch64.sh does (its copy of the sources is the one the first package came from).
in_build_root env CAIRN_DEB_VERSION="$upgrade_version" CAIRN_DEB_OUT=/tmp/deb bash /src/cairn/deploy/debian/build-deb.sh \
    "$arch" "$([ "$arch" = arm64 ] && echo /build/aarch64/aarch64-unknown-linux-gnu/release/cairn || echo /build/x86_64/release/cairn)" \
    >/dev/null || die "could not build the $upgrade_version package"
mv "$build_root/tmp/deb/cairn_${upgrade_version}_${arch}.deb" "$root/tmp/deb/"
v1=/tmp/deb/$(basename "$deb")
v2=/tmp/deb/cairn_${upgrade_version}_${arch}.deb

# 3. Install.
in_test dpkg -i "$v1" >/dev/null || die "dpkg -i $v1"
[ "$(in_test /usr/bin/cairn --version)" = "$version" ] || die "/usr/bin/cairn --version"
user=$(in_test getent passwd cairn) || die "no cairn user"
[[ "$user" == *:/var/lib/cairn:/usr/sbin/nologin ]] || die "the cairn user is not a system user of /var/lib/cairn: $user"
[ "$(in_test stat -c %U:%G:%a /var/lib/cairn)" = cairn:cairn:755 ] || die "/var/lib/cairn is not cairn's"
[ -L "$root/etc/systemd/system/multi-user.target.wants/cairn.service" ] || die "cairn.service is not enabled"
[[ "$(in_test dpkg-query -W -f '${Conffiles}' cairn)" == *" /etc/cairn.conf "* ]] || die "/etc/cairn.conf is not a conffile"
verify=$(in_test systemd-analyze verify /usr/lib/systemd/system/cairn.service /usr/lib/systemd/system/cairn-deliver.service /usr/lib/systemd/system/cairn-deliver.timer /usr/lib/systemd/system/cairn-deliver.path 2>&1) || die "systemd-analyze verify: $verify"
[ -z "$verify" ] || die "systemd-analyze verify complained: $verify"
man_warnings=$(in_test sh -c 'MANWIDTH=80 man --warnings -l /usr/share/man/man1/cairn.1.gz 2>&1 >/dev/null')
[ -z "$man_warnings" ] || die "man cairn warns: $man_warnings"
say "installed: user, /var/lib/cairn, unit enabled and valid (systemd-analyze verify)"

# 4. The service's command (its ExecStart, as its User), against a fake gpsd on this host: no
#    systemd runs here, so this is the recorder starting and stopping as the unit would.
port_file=$(mktemp)
python3 "$repo/Tests/tools/fake-gpsd.py" --ride --rate 10 --port 0 >"$port_file" &
pids+=($!)
for _ in $(seq 50); do grep -q READY "$port_file" && break; sleep 0.1; done
port=$(sed -n 's/^READY //p' "$port_file" | head -1)
[ -n "$port" ] || die "fake gpsd did not start"
# A local change, to be kept by the upgrade. The fake ride's fixes are dated 2025: judge their
# age by fix time.
sed -i "s/^gpsd = .*/gpsd = 127.0.0.1:$port/" "$root/etc/cairn.conf"
grep -q '^clock = ' "$root/etc/cairn.conf" || echo "clock = fix" >>"$root/etc/cairn.conf"
grep -q "^gpsd = 127.0.0.1:$port\$" "$root/etc/cairn.conf" || die "/etc/cairn.conf has no 'gpsd =' line to change"
exec_start=$(sed -n 's/^ExecStart=//p' "$root/usr/lib/systemd/system/cairn.service")
mkdir -p "$root/run/cairn" && in_test chown cairn:cairn /run/cairn
chroot --userspec=cairn:cairn "$root" /usr/bin/env -i PATH=/usr/bin:/bin $exec_start >"$repo/.build/test-deb-record.log" 2>&1 &
rec=$!; pids+=($rec)
sleep 8
kill -TERM "$rec" 2>/dev/null || true
rc=0; wait "$rec" || rc=$?
[ "$rc" = 0 ] || { cat "$repo/.build/test-deb-record.log" >&2; die "the service command exited $rc at SIGTERM"; }
trip=$(cd "$root/var/lib/cairn" && ls -- *.cairn 2>/dev/null | head -1 || true)
[ -n "$trip" ] || { cat "$repo/.build/test-deb-record.log" >&2; die "no trip recorded in /var/lib/cairn"; }
[ "$(in_test stat -c %U "/var/lib/cairn/$trip")" = cairn ] || die "$trip is not owned by cairn"
listed=$(in_test cairn list /var/lib/cairn) || die "cairn list failed"
[[ "$listed" == *closed* ]] || die "cairn list shows no closed trip: $listed"
sum=$(md5sum <"$root/var/lib/cairn/$trip")
say "the service command recorded $trip as cairn and stopped cleanly at SIGTERM"

# 5. Upgrade: the local conffile change and the trip stay.
in_test dpkg -i "$v2" >/dev/null </dev/null || die "upgrade to $upgrade_version"
[ "$(in_test dpkg-query -W -f '${Version}' cairn)" = "$upgrade_version" ] || die "not upgraded"
grep -q "^gpsd = 127.0.0.1:$port\$" "$root/etc/cairn.conf" || die "the upgrade lost the local /etc/cairn.conf change"
[ "$(md5sum <"$root/var/lib/cairn/$trip")" = "$sum" ] || die "the upgrade changed $trip"
say "upgraded to $upgrade_version: /etc/cairn.conf change and the trip kept"

# 6. Remove: binary and unit go, configuration and trips stay.
in_test dpkg -r cairn >/dev/null || die "dpkg -r"
[ ! -e "$root/usr/bin/cairn" ] && [ ! -e "$root/usr/lib/systemd/system/cairn.service" ] || die "remove left the binary or unit"
[ -f "$root/etc/cairn.conf" ] || die "remove deleted /etc/cairn.conf"
[ "$(md5sum <"$root/var/lib/cairn/$trip")" = "$sum" ] || die "remove changed $trip"
say "removed: /etc/cairn.conf and the trip kept"

# 7. Purge: the configuration goes, the trips stay, and it says so.
out=$(in_test dpkg -P cairn 2>&1) || die "dpkg -P: $out"
[[ "$out" == *"kept /var/lib/cairn"* ]] || die "purge did not say it kept /var/lib/cairn: $out"
[ ! -e "$root/etc/cairn.conf" ] || die "purge kept /etc/cairn.conf"
[ ! -e "$root/etc/systemd/system/multi-user.target.wants/cairn.service" ] || die "purge left the unit enabled"
[ "$(md5sum <"$root/var/lib/cairn/$trip")" = "$sum" ] || die "purge changed or deleted $trip"
say "purged: /etc/cairn.conf gone, the trip kept (\"$(echo "$out" | grep -o 'kept /var/lib/cairn[^;]*')\")"

# 8. Reinstall over the kept data: the trip is still listed.
in_test dpkg -i "$v1" >/dev/null || die "reinstall"
[ "$(in_test cairn list /var/lib/cairn)" = "$listed" ] || die "the reinstalled cairn does not list the kept trip as before"
[ "$(in_test stat -c %U /var/lib/cairn)" = cairn ] || die "/var/lib/cairn not cairn's after reinstall"
in_test dpkg -P cairn >/dev/null
say "reinstalled over the kept trips: listed; all good"
