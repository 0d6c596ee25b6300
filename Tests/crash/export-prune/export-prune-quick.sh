#!/usr/bin/env bash
# Quick export/prune attacks on crafted logs (craftlib.py). Each prints what to look at.
#   A  a stick copy damaged after export (same size): re-export trusts it, prune deletes the log
#   B  a log whose points are all damaged: marked exported "logs" with no copy; prune --max-mb deletes it
#   C  the state file truncated / garbage / 100 MB / a directory: never "exported"; messages?
#   D  a destination that fills up (tmpfs 200k; needs root)
#   E  two exports at once from one directory
#   F  --logs no (zones) then prune: kept
# Usage: export-prune-quick.sh CAIRN_BIN [WORKDIR]
set -u
B=${1:?cairn binary}; W=${2:-/tmp/ae-quick}; HERE=$(cd "$(dirname "$0")" && pwd)
rm -rf "$W"; mkdir -p "$W"; cd "$W"
mk() { rm -rf "$1"; mkdir -p "$1/logs"; python3 -c "
import sys; sys.path.insert(0, '$HERE'); import craftlib as c
T = 1748764800000
for k in range(1, $2 + 1): c.write('$1/logs/%08d.cairn' % k, k, c.fixes(T + k * 86400000, ${3:-60}, seed=k))
"; }
echo "== A: damaged stick copy, same size"
mk A 3; "$B" export --dir A/logs --to A/stick 2>/dev/null
printf 'X' | dd of=A/stick/logs/00000001.cairn bs=1 seek=100 conv=notrunc 2>/dev/null
"$B" export --dir A/logs --to A/stick; echo "export rc=$? (expected: the damaged copy named, trip 1 not 'already there')"
cmp A/logs/00000001.cairn A/stick/logs/00000001.cairn
"$B" prune --dir A/logs --keep-days 1 --dry-run
echo "== B: every point record damaged"
mk B 2; python3 -c "
b = bytearray(open('B/logs/00000001.cairn', 'rb').read())
for i in range(75, len(b) - 40): b[i] ^= 0x55
open('B/logs/00000001.cairn', 'wb').write(b)"
"$B" export --dir B/logs --to B/stick; echo "export rc=$?"; ls B/stick/logs; grep 00000001 B/logs/exported
"$B" prune --dir B/logs --max-mb 0.001 --dry-run
echo "== C: state file damaged"
mk C 3; "$B" export --dir C/logs --to C/stick 2>/dev/null; cp C/logs/exported C/good
head -c 5000 /dev/urandom >C/logs/exported; "$B" prune --dir C/logs --keep-days 1 --dry-run
rm C/logs/exported; truncate -s 100M C/logs/exported; cat C/good >>C/logs/exported
/usr/bin/time -f "prune on a 100 MB state file: %e s, %M KB" "$B" prune --dir C/logs --keep-days 1 --dry-run
"$B" export --dir C/logs --to C/stick; echo "export rc=$?"; ls -la C/logs/exported
echo "== D: a destination that fills up"
mk D 4 3000; mkdir -p D/stick
if mount -t tmpfs -o size=200k tmpfs D/stick 2>/dev/null; then
  "$B" export --dir D/logs --to D/stick; echo "export rc=$?"; find D/stick -name '.*part'; grep -c v2 D/logs/exported
  "$B" prune --dir D/logs --keep-days 1 --dry-run; umount D/stick
fi
echo "== E: two exports at once"
mk E 30 3000
"$B" export --dir E/logs --to E/s1 2>E/e1 & "$B" export --dir E/logs --to E/s2 2>E/e2 & wait
cat E/e1 E/e2; grep -c v2 E/logs/exported
echo "== F: --logs no then prune"
mk F 3; "$B" export --dir F/logs --to F/stick --privacy-zone 47.40,8.60,100; "$B" prune --dir F/logs --keep-days 1; ls F/logs
echo "== G: clock: a copied-in log dated 2099 (a GPS rollover on another board) and trips from 2025"
mk G 3; python3 -c "
import sys; sys.path.insert(0, '$HERE'); import craftlib as c
c.write('G/logs/00000009.cairn', 9, c.fixes(4070908800000, 60, seed=9))"
"$B" export --dir G/logs --to G/stick 2>/dev/null; "$B" prune --dir G/logs --keep-days 1 --dry-run
echo "== H: the same trip half-copied in under another name, exported, then pruned"
mk H 2; head -c 900 H/logs/00000001.cairn >H/logs/00000005.cairn
"$B" export --dir H/logs --to H/stick; echo "export rc=$?"; "$B" prune --dir H/logs --max-mb 0.001; ls H/logs H/stick/logs
cmp H/logs/00000001.cairn H/stick/logs/00000001.cairn 2>&1 || cmp /dev/null /dev/null
