#!/usr/bin/env bash
# Builds everything a release of cairn holds, from this checkout's HEAD, as root on a Debian 12
# x86_64 machine: the aarch64 and x86_64 static binaries (Debian 13's Swift 6.0.3, stripped), the
# arm64 and amd64 Debian packages, and SHA256SUMS over them, in .build/release-VERSION/.
#
#   sudo bash deploy/release.sh [--allow-dirty]
#
# The version is Sources/cairn/Console.swift's, and deploy/debian/changelog and CHANGELOG.md must
# have its section (build-deb.sh checks the first). A tree with uncommitted changes is refused
# (the files would not be HEAD's) unless --allow-dirty. The build is deploy/build-aarch64.sh's
# (its Debian 13 root cached in $CAIRN_CACHE); each binary is then run for its version (the
# aarch64 one through qemu-user) and each package's version read back before SHA256SUMS is made.
set -euo pipefail
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
dirty=no
for a in "$@"; do
    case "$a" in
        --allow-dirty) dirty=yes ;;
        -h|--help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "release: unknown option '$a' (see --help)" >&2; exit 64 ;;
    esac
done
say() { echo "release: $*"; }
die() { echo "release: ERROR: $*" >&2; exit 1; }
version=$(sed -n 's/^let cairnVersion = "\(.*\)"$/\1/p' Sources/cairn/Console.swift)
[ -n "$version" ] || die "no cairnVersion in Sources/cairn/Console.swift"
grep -q "^## $version\b" CHANGELOG.md || die "CHANGELOG.md has no '## $version' section"
if [ "$dirty" = no ] && [ -n "$(git status --porcelain)" ]; then
    die "uncommitted changes: a release is built from HEAD (commit them, or --allow-dirty)"
fi
say "cairn $version from $(git rev-parse --short HEAD)"
bash deploy/build-aarch64.sh
out=.build/release-$version
rm -rf "$out"
mkdir -p "$out"
cp .build/aarch64/cairn "$out/cairn-$version-aarch64"
cp .build/x86_64-6.0/cairn "$out/cairn-$version-x86_64"
cp ".build/deb/cairn_${version}_arm64.deb" ".build/deb/cairn_${version}_amd64.deb" "$out/"
# What each file says it is, before it is summed.
[ "$("$out/cairn-$version-x86_64" --version)" = "$version" ] || die "the x86_64 binary is not $version"
qemu=$(command -v qemu-aarch64-static || command -v qemu-aarch64 || true)
[ -n "$qemu" ] || die "no qemu-aarch64 to run the aarch64 binary (build-aarch64.sh installs qemu-user-static)"
[ "$("$qemu" "$out/cairn-$version-aarch64" --version)" = "$version" ] || die "the aarch64 binary is not $version"
for arch in arm64 amd64; do
    deb="$out/cairn_${version}_$arch.deb"
    [ "$(dpkg-deb -f "$deb" Version)" = "$version" ] && [ "$(dpkg-deb -f "$deb" Architecture)" = "$arch" ] \
        || die "$deb: not version $version for $arch"
done
(cd "$out" && sha256sum -- cairn-* *.deb >SHA256SUMS && sha256sum -c --quiet SHA256SUMS)
say "release files in $out:"
ls -l "$out"
