#!/usr/bin/env bash
# Makes aarch64 binaries run here as if native (through qemu-aarch64-static and binfmt_misc), so
# the end-to-end tests can start .build/aarch64/cairn like any other binary. Root only.
# Mounts binfmt_misc and registers Debian's qemu-aarch64 handler (flag F: the interpreter is
# opened now, so it works in chroots and namespaces too) when they are missing.
set -euo pipefail
die() { echo "aarch64-binfmt: ERROR: $*" >&2; exit 1; }
dir=/proc/sys/fs/binfmt_misc
conf=/usr/lib/binfmt.d/qemu-aarch64.conf
[ -f "$conf" ] || die "no $conf: install qemu-user-static"
if [ ! -e "$dir/register" ]; then
    mount -t binfmt_misc binfmt_misc "$dir" || die "cannot mount binfmt_misc on $dir"
fi
if [ ! -e "$dir/qemu-aarch64" ]; then
    grep -v '^#' "$conf" | head -1 >"$dir/register" || die "cannot register the qemu-aarch64 handler"
fi
grep -q '^enabled' "$dir/qemu-aarch64" || echo 1 >"$dir/qemu-aarch64"
[ "$(cat "$dir/status")" = enabled ] || echo 1 >"$dir/status"
if [ $# -gt 0 ]; then
    out=$("$1" --version) || die "$1 does not run through binfmt_misc"
    echo "aarch64-binfmt: $1 --version: $out (through $(sed -n 's/^interpreter //p' "$dir/qemu-aarch64"))"
fi
