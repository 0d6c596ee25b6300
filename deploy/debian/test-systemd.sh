#!/usr/bin/env bash
# The package under a real systemd: boots systemd as PID 1 of a new PID and mount namespace in a
# Debian 12 amd64 chroot (made by `CAIRN_TEST_SUITE=bookworm deploy/debian/test-deb.sh amd64`;
# Debian 13's systemd needs the unified cgroup hierarchy, which this kind of container lacks),
# installs the package and checks that postinst starts the service, that it reports READY with a
# status, stops with exit 0, starts again, and that removing the package stops it. Root only.
#
# The unit's file-system sandbox (ProtectSystem=strict, PrivateTmp=, ...) needs mount namespaces
# this container cannot set up for a service (systemd fails it with 226/NAMESPACE before cairn
# runs), so a runtime drop-in turns those options off here; everything else of the unit (User=,
# Type=notify, the watchdog, StateDirectory=, RuntimeDirectory=) is as shipped. On a board the
# sandbox is on (systemd-analyze verify and security check it, DeployTests).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
say() { echo "test-systemd: $*"; }
die() { echo "test-systemd: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root"
root=$repo/.build/deb-test-root-amd64-bookworm
[ -f "$root/.cairn-test-root" ] || die "no $root: run CAIRN_TEST_SUITE=bookworm deploy/debian/test-deb.sh amd64 first"
version=$(sed -n 's/^let cairnVersion = "\(.*\)"$/\1/p' "$repo/Sources/cairn/Console.swift")
deb=$repo/.build/deb/cairn_${version}_amd64.deb
[ -f "$deb" ] || die "no $deb: run deploy/build-aarch64.sh"

chroot "$root" dpkg -P cairn >/dev/null 2>&1 || true
cp "$deb" "$root/var/tmp/"
unshare --pid --fork --mount --uts --mount-proc="$root/proc" \
    env -i container=cairn-test PATH=/usr/sbin:/usr/bin:/sbin:/bin chroot "$root" /lib/systemd/systemd --system \
    >"$repo/.build/test-systemd.log" 2>&1 &
launcher=$!
sd=""
cleanup() {
    # SIGKILL to PID 1 of the namespace ends every process in it.
    [ -n "$sd" ] && kill -KILL "$sd" 2>/dev/null || true
    wait "$launcher" 2>/dev/null || true
}
trap cleanup EXIT
for _ in $(seq 100); do
    sd=$(pgrep -P "$launcher" | head -1 || true)
    [ -n "$sd" ] && break
    sleep 0.1
done
[ -n "$sd" ] || die "systemd did not start (see .build/test-systemd.log)"
ns() { nsenter -t "$sd" -m -p -u -r -w env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"; }
state=""
for _ in $(seq 60); do
    state=$(ns systemctl is-system-running 2>/dev/null || true)
    case "$state" in running|degraded) break ;; esac
    sleep 0.5
done
case "$state" in running|degraded) ;; *) die "systemd did not come up (state '$state')" ;; esac
say "systemd $(ns systemctl --version | head -1 | cut -d' ' -f2) is PID 1 in the chroot ($state)"

ns mkdir -p /run/systemd/system/cairn.service.d
ns sh -c 'cat >/run/systemd/system/cairn.service.d/no-mount-sandbox.conf' <<'EOF'
[Service]
ProtectSystem=no
ProtectHome=no
PrivateTmp=no
PrivateDevices=no
ProtectKernelTunables=no
ProtectKernelModules=no
ProtectKernelLogs=no
ProtectControlGroups=no
ProtectClock=no
ProtectHostname=no
ReadWritePaths=
BindReadOnlyPaths=
EOF
ns systemctl daemon-reload

wait_active() {
    local s=""
    for _ in $(seq 40); do
        s=$(ns systemctl is-active cairn 2>/dev/null || true)
        [ "$s" = active ] && return 0
        sleep 0.25
    done
    ns journalctl -u cairn --no-pager -n 20 >&2 || true
    die "cairn.service is '$s', not active"
}

# Install: postinst enables and starts it (Type=notify: active means cairn sent READY=1).
ns dpkg -i "/var/tmp/$(basename "$deb")" >/dev/null 2>&1 || die "dpkg -i"
wait_active
status=$(ns systemctl show cairn -p StatusText --value)
[ -n "$status" ] || die "no STATUS= from cairn"
[ "$(ns systemctl show cairn -p User --value)" = cairn ] || die "not run as cairn"
main=$(ns systemctl show cairn -p MainPID --value)
[ "$(ns stat -c %U "/proc/$main")" = cairn ] || die "the main process is not the cairn user's"
say "installed: cairn.service active (READY), as user cairn, status \"$status\""

# Stop: SIGTERM, clean exit 0.
ns systemctl stop cairn
[ "$(ns systemctl show cairn -p ActiveState --value)" = inactive ] || die "did not stop"
[ "$(ns systemctl show cairn -p ExecMainStatus --value)" = 0 ] || die "exit status $(ns systemctl show cairn -p ExecMainStatus --value) at stop"
[ "$(ns systemctl show cairn -p Result --value)" = success ] || die "stop result $(ns systemctl show cairn -p Result --value)"
say "stopped: exit 0, result success"
ns systemctl start cairn
wait_active
say "started again"

# Remove: prerm stops it.
ns dpkg -r cairn >/dev/null 2>&1 || die "dpkg -r"
[ "$(ns systemctl is-active cairn 2>/dev/null || true)" != active ] || die "still active after dpkg -r"
[ "$(ns systemctl show cairn -p ExecMainStatus --value)" = 0 ] || die "exit status at removal"
ns dpkg -P cairn >/dev/null 2>&1 || die "dpkg -P"
[ -d "$root/var/lib/cairn" ] || die "purge deleted /var/lib/cairn"
say "removed: stopped with exit 0; purged: /var/lib/cairn kept"
