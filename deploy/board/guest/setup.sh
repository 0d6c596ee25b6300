#!/usr/bin/env bash
# Makes a copy of the cached guest root into one run's board: our .deb installed (as a user
# installs it), gpsd on the serial GPS, the barometer on i2c-stub, the log disk's mount, and the
# board's own helpers (the host drives the guest through them over virtio-serial ports).
#   setup.sh ROOTDIR DEB LOGFS [GPSDEV]   LOGFS: ext4 or vfat (the log disk /dev/vdb at /var/lib/cairn)
#                                         GPSDEV: the GPS's serial port (/dev/ttyS1; arm64: /dev/hvc0)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${1:?usage: setup.sh ROOTDIR DEB LOGFS}
deb=${2:?usage: setup.sh ROOTDIR DEB LOGFS}
logfs=${3:?usage: setup.sh ROOTDIR DEB LOGFS}
gpsdev=${4:-/dev/ttyS1}
die() { echo "setup: ERROR: $*" >&2; exit 1; }

echo board >"$root/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 board\n' >"$root/etc/hosts"
chroot "$root" passwd -qd root >/dev/null   # the serial console, for looking around by hand

# cairn from our package, as `apt install ./cairn.deb` would (the service enabled, not started).
cp "$deb" "$root/tmp/cairn.deb"
chroot "$root" dpkg -i /tmp/cairn.deb >"$root/tmp/dpkg.log" 2>&1 || { cat "$root/tmp/dpkg.log" >&2; die "dpkg -i $(basename "$deb") failed in the guest root"; }
rm -f "$root/tmp/cairn.deb"
[ -L "$root/etc/systemd/system/multi-user.target.wants/cairn.service" ] || die "the package did not enable cairn.service"
uid=$(chroot "$root" id -u cairn) gid=$(chroot "$root" id -g cairn)

# The recorded ride is from 2013: judge fix age by GPS time (the documented `clock = fix`); say
# each sync (the host reads the acknowledged sequence numbers from the journal); the host plays
# the ride 20 times faster than it was ridden, so read gpsd and the barometer every second
# (20 s of the ride) rather than every 5 (100 s). sync stays at the shipped 5 s.
printf '\n# board in a box\nclock = fix\nverbose = yes\nread-every = 1\n' >>"$root/etc/cairn.conf"

case "$logfs" in
    ext4) logline="/dev/vdb /var/lib/cairn ext4 defaults,data=ordered 0 2" ;;
    # a FAT card: everything owned by cairn (FAT has no owners), as the unit's StateDirectory wants it
    vfat) logline="/dev/vdb /var/lib/cairn vfat defaults,uid=$uid,gid=$gid,fmask=0022,dmask=0022 0 2" ;;
    *) die "unknown log file system '$logfs' (ext4 or vfat)" ;;
esac
printf '/dev/vda / ext4 rw,errors=remount-ro 0 1\n%s\n' "$logline" >"$root/etc/fstab"

cat >"$root/etc/default/gpsd" <<GPSD
# board in a box: the GPS is a serial port fed NMEA by the host.
START_DAEMON="true"
USBAUTO="false"
DEVICES="$gpsdev"
GPSD_OPTIONS="-n"
GPSD
chroot "$root" systemctl enable gpsd.service gpsd.socket >/dev/null 2>&1 || true

install -m 0755 "$here/board-agent" "$here/board-baro" "$here/board-led" "$here/board-button" "$root/usr/local/sbin/"
# The rider's button is a uinput key here, not gpio-keys (no `keys` attribute for the package's
# rule): the same link and group by its name, as a rider would write for another kind of button.
printf '%s\n' 'SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="board-button", SYMLINK+="input/cairn-button", GROUP="cairn", MODE="0640"' \
    >"$root/etc/udev/rules.d/61-board-button.rules"
for u in board-agent.service board-journal.service board-baro.service board-led.service board-button.service; do
    install -m 0644 "$here/$u" "$root/etc/systemd/system/$u"
    ln -sf "/etc/systemd/system/$u" "$root/etc/systemd/system/multi-user.target.wants/$u"
done
# Nothing here needs the network or a login prompt on the console.
for u in systemd-networkd-wait-online.service e2scrub_reap.service modprobe@drm.service modprobe@fuse.service \
         modprobe@dm_mod.service modprobe@loop.service dev-hugepages.mount dev-mqueue.mount \
         serial-getty@hvc0.service; do
    ln -sf /dev/null "$root/etc/systemd/system/$u"
done
ln -sf /dev/null "$root/etc/systemd/system/apt-daily.timer"
ln -sf /dev/null "$root/etc/systemd/system/apt-daily-upgrade.timer"
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' >"$root/etc/systemd/journald.conf.d/board.conf"
