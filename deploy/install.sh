#!/usr/bin/env bash
# Installs cairn as a boot-time service: binary, systemd unit, user, config, data directory.
# Idempotent: run it again to upgrade the binary or unit; an existing /etc/cairn.conf is kept
# (a config without a `board = ID` line gets one at its top: the hostname and the machine id).
#
#   sudo deploy/install.sh [--binary PATH] [--no-start]   install (binary default: ./cairn, else
#                                                        .build/release/cairn)
#   sudo deploy/install.sh --uninstall [--purge]          stop and remove the service and binary;
#                                                        --purge also removes the config, the user
#                                                        and /var/lib/cairn (your rides!)
#   deploy/install.sh --root DIR ...                     stage into DIR instead of / (no systemctl;
#                                                        the user goes into DIR/etc/passwd when it
#                                                        exists). Used by the tests, with
#                                                        --no-static-check (a debug build).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root="" binary="" uninstall=no purge=no start=yes static_check=yes
while [ $# -gt 0 ]; do
    case "$1" in
        --root) root=${2:?--root needs a directory}; shift 2 ;;
        --binary) binary=${2:?--binary needs a path}; shift 2 ;;
        --uninstall) uninstall=yes; shift ;;
        --purge) purge=yes; shift ;;
        --no-start) start=no; shift ;;
        --no-static-check) static_check=no; shift ;;
        -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see --help)" >&2; exit 64 ;;
    esac
done

say() { echo "install.sh: $*"; }
die() { echo "install.sh: ERROR: $*" >&2; exit 1; }

bin_path="$root/usr/local/bin/cairn"
unit_path="$root/etc/systemd/system/cairn.service"
conf_path="$root/etc/cairn.conf"
data_dir="$root/var/lib/cairn"
doc_dir="$root/usr/local/share/doc/cairn"

if [ -z "$root" ]; then
    [ "$(id -u)" -eq 0 ] || die "run as root (sudo), or stage with --root DIR"
fi
# systemctl only on a live system booted with systemd.
live_systemd=no
if [ -z "$root" ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null; then live_systemd=yes; fi

have_user() {
    if [ -n "$root" ]; then grep -q '^cairn:' "$root/etc/passwd" 2>/dev/null; else getent passwd cairn >/dev/null; fi
}

if [ "$uninstall" = yes ]; then
    if [ "$live_systemd" = yes ]; then
        systemctl disable --now cairn.service cairn-deliver.timer cairn-deliver.path 2>/dev/null || true
    fi
    rm -f "$unit_path" "$bin_path" "$root/usr/local/share/man/man1/cairn.1.gz" "$root/usr/local/share/bash-completion/completions/cairn" "$root/etc/systemd/system/cairn-deliver.service" "$root/etc/systemd/system/cairn-deliver.timer" "$root/etc/systemd/system/cairn-deliver.path" "$root/etc/udev/rules.d/60-cairn-button.rules" \
        "$root/etc/NetworkManager/dispatcher.d/90-cairn-deliver"
    rm -rf "$doc_dir"
    [ "$live_systemd" = yes ] && systemctl daemon-reload
    say "removed the service and $bin_path"
    if [ "$purge" = yes ]; then
        rm -f "$conf_path"
        rm -rf "$data_dir"
        if have_user; then
            if [ -n "$root" ]; then
                [ -f "$root/etc/passwd" ] && userdel --prefix "$root" cairn 2>/dev/null || true
            else
                userdel cairn 2>/dev/null || true
            fi
        fi
        say "purged $conf_path, $data_dir and the cairn user"
    else
        say "kept $conf_path and the rides in $data_dir (--purge removes them)"
    fi
    exit 0
fi

# The binary: must be the static one (the board has no Swift runtime).
if [ -z "$binary" ]; then
    for b in "$PWD/cairn" "$here/../.build/release/cairn"; do [ -x "$b" ] && { binary=$b; break; }; done
fi
[ -n "$binary" ] && [ -x "$binary" ] || die "no cairn binary: build it (see deploy/CROSS-BUILD.md) and pass --binary PATH"
if [ "$static_check" = yes ] && command -v file >/dev/null && ! file -L "$binary" | grep -q 'statically linked'; then
    die "$binary is not statically linked: build it with Tests/tools/build-static.sh or the Static Linux SDK"
fi

mkdir -p "$(dirname "$bin_path")" "$(dirname "$unit_path")" "$(dirname "$conf_path")" "$doc_dir"

# The user: a system account with no login and no home of its own.
if ! have_user; then
    if [ -n "$root" ]; then
        if [ -f "$root/etc/passwd" ]; then
            useradd --prefix "$root" --system --no-create-home --home-dir /var/lib/cairn --shell /usr/sbin/nologin --user-group cairn
            say "created user cairn in $root/etc/passwd"
        else
            say "no $root/etc/passwd: user cairn not created (staging only)"
        fi
    else
        useradd --system --no-create-home --home-dir /var/lib/cairn --shell /usr/sbin/nologin --user-group cairn
        say "created user cairn"
    fi
fi

# Binary and unit: replaced through a temporary name, so a running service is never half-written.
install -m 0755 "$binary" "$bin_path.new" && mv -f "$bin_path.new" "$bin_path"
install -m 0644 "$here/cairn.service" "$unit_path.new" && mv -f "$unit_path.new" "$unit_path"
# Delivery (cairn deliver through rclone): its unit, timer and network hook, installed off;
# 'systemctl enable --now cairn-deliver.timer' turns it on (deploy/DELIVERY.md).
for u in cairn-deliver.service cairn-deliver.timer cairn-deliver.path; do
    install -m 0644 "$here/$u" "$root/etc/systemd/system/$u.new" && mv -f "$root/etc/systemd/system/$u.new" "$root/etc/systemd/system/$u"
done
mkdir -p "$root/etc/NetworkManager/dispatcher.d" "$root/etc/cairn"
# The rider's button's udev rule (Hardware/button.md): names it for the unit, hands it to cairn.
mkdir -p "$root/etc/udev/rules.d"
install -m 0644 "$here/60-cairn-button.rules" "$root/etc/udev/rules.d/60-cairn-button.rules"
install -m 0755 "$here/90-cairn-deliver" "$root/etc/NetworkManager/dispatcher.d/90-cairn-deliver"
# The guides beside this script, which the units' Documentation= name: the service and the
# package (README.md), every step from parts to rides off (PUT-IT-ON-A-BIKE.md), delivery.
if [ -f "$here/README.md" ]; then install -m 0644 "$here/README.md" "$doc_dir/README.md"; fi
if [ -f "$here/PUT-IT-ON-A-BIKE.md" ]; then install -m 0644 "$here/PUT-IT-ON-A-BIKE.md" "$doc_dir/PUT-IT-ON-A-BIKE.md"; fi
if [ -f "$here/DELIVERY.md" ]; then install -m 0644 "$here/DELIVERY.md" "$doc_dir/DELIVERY.md"; fi
# The manual page and bash's completion, made from the installed binary's own help (a binary
# for another machine, staged with --root, cannot say: then they are left out, said).
man_path="$root/usr/local/share/man/man1/cairn.1.gz"
completion_path="$root/usr/local/share/bash-completion/completions/cairn"
mkdir -p "$(dirname "$man_path")" "$(dirname "$completion_path")"
if "$binary" --version >/dev/null 2>&1; then
    bash "$here/man/make-man.sh" "$binary" | gzip -9n >"$man_path.new" && mv -f "$man_path.new" "$man_path"
    bash "$here/man/make-completion.sh" "$binary" >"$completion_path.new" && mv -f "$completion_path.new" "$completion_path"
    chmod 0644 "$man_path" "$completion_path"
else
    say "$binary does not run here: no manual page or completion installed (run install.sh on the board)"
fi
say "installed $bin_path ($("$bin_path" --version 2>/dev/null || echo '?')) and $unit_path"

# The config: never overwritten (it is the rider's).
if [ -e "$conf_path" ]; then
    say "kept the existing $conf_path"
else
    install -m 0644 "$here/cairn.conf" "$conf_path"
    say "installed $conf_path"
fi

# The board's id (`board = ID`, at the top of the config), when the config has none: every export
# and delivery names the trips by it, so two boards' files never mix. HOSTNAME-XXXXXX, XXXXXX the
# first 6 hex digits of the machine id (two boards left with one hostname still differ), cut to
# the 1-32 characters of [A-Za-z0-9._-] an id may have. Staged (--root) from the root's own files
# only: a machine id made at the image's first boot is not there yet, and the builder's is not
# the board's.
board_id() {
    local host="" mid="" id
    if [ -n "$root" ]; then
        [ -r "$root/etc/hostname" ] && host=$(head -n 1 "$root/etc/hostname")
    else
        host=$(hostname 2>/dev/null || head -n 1 /etc/hostname 2>/dev/null || true)
    fi
    [ -r "$root/etc/machine-id" ] && mid=$(head -c 6 "$root/etc/machine-id" | tr 'A-F' 'a-f')
    case "$mid" in *[!0-9a-f]*) mid="" ;; esac
    [ ${#mid} -eq 6 ] || mid=""
    host=$(printf '%s' "$host" | tr -c 'A-Za-z0-9._-' '-' | sed 's/^[.-]*//' | cut -c 1-25)
    [ -n "$host" ] || [ -z "$mid" ] || host=cairn
    id=$host${mid:+-$mid}
    printf '%s' "$id"
}
if grep -Eq '^[[:space:]]*board[[:space:]]*=' "$conf_path"; then
    :
elif id=$(board_id) && [ -n "$id" ]; then
    { printf '# This board'"'"'s name: every export and delivery carries it (written by install.sh).\nboard = %s\n' "$id"
      cat "$conf_path"; } > "$conf_path.new"
    chmod --reference="$conf_path" "$conf_path.new" 2>/dev/null || chmod 0644 "$conf_path.new"
    mv -f "$conf_path.new" "$conf_path"
    say "set board = $id in $conf_path"
else
    say "no hostname or machine id to name the board by: set 'board = ID' in $conf_path"
fi

# The data directory (systemd's StateDirectory= also creates it; made here for hand runs).
mkdir -p "$data_dir"
if have_user; then
    if [ -n "$root" ]; then
        uid=$(awk -F: '$1=="cairn"{print $3}' "$root/etc/passwd"); gid=$(awk -F: '$1=="cairn"{print $4}' "$root/etc/passwd")
        chown "$uid:$gid" "$data_dir"
    else
        chown cairn:cairn "$data_dir"
    fi
fi
chmod 0755 "$data_dir"

# Check the config as the service will read it.
"$bin_path" record --config "$conf_path" --check >/dev/null || die "$conf_path: fix the line named above, then run this again"

if [ "$live_systemd" = yes ]; then
    systemctl daemon-reload
    systemctl enable cairn.service >/dev/null
    if [ "$start" = yes ]; then systemctl restart cairn.service; say "started: systemctl status cairn; cairn status"; fi
else
    say "not a running systemd: enable later with 'systemctl enable --now cairn'"
fi
