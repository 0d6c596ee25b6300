#!/usr/bin/env bash
# Builds .build/deb/cairn_VERSION_ARCH.deb with dpkg-deb from a static cairn binary.
#   build-deb.sh ARCH BINARY        ARCH: arm64 or amd64
# The version is cairnVersion in Sources/cairn/Console.swift (what `cairn --version` prints),
# and must head deploy/debian/changelog. CAIRN_DEB_VERSION overrides it (for upgrade tests; the
# changelog then gets an entry for it), CAIRN_DEB_OUT the output directory.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
arch=${1:?usage: build-deb.sh ARCH BINARY}
bin=${2:?usage: build-deb.sh ARCH BINARY}
die() { echo "build-deb: ERROR: $*" >&2; exit 1; }

case "$arch" in
    arm64) machine="ARM aarch64"; runner=$(command -v qemu-aarch64-static || true) ;;
    amd64) machine="x86-64"; runner="" ;;
    *) die "unknown architecture '$arch' (arm64 or amd64)" ;;
esac
[ -x "$bin" ] || die "no binary at $bin"
desc=$(file -b "$bin")
echo "$desc" | grep -q "$machine" || die "$bin is not $machine: $desc"
echo "$desc" | grep -q "statically linked" || die "$bin is not statically linked: $desc"
[ "$arch" = amd64 ] || [ -n "$runner" ] || die "qemu-aarch64-static is needed to read the arm64 binary's help"

source_version=$(sed -n 's/^let cairnVersion = "\(.*\)"$/\1/p' "$repo/Sources/cairn/Console.swift")
[ -n "$source_version" ] || die "no 'let cairnVersion = \"...\"' in Sources/cairn/Console.swift"
run() { if [ -n "$runner" ]; then "$runner" "$bin" "$@"; else "$bin" "$@"; fi; }
[ "$(run --version)" = "$source_version" ] || die "$bin --version says '$(run --version)', the sources say $source_version: rebuild it"
changelog_version=$(sed -n '1s/^cairn (\([^)]*\)).*/\1/p' "$here/changelog")
[ "$changelog_version" = "$source_version" ] || die "deploy/debian/changelog starts at $changelog_version, the sources are at $source_version: add a changelog entry"
version=${CAIRN_DEB_VERSION:-$source_version}

out=${CAIRN_DEB_OUT:-$repo/.build/deb}
stage=$out/stage-$arch
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/bin" "$stage/usr/lib/systemd/system" "$stage/etc" \
         "$stage/usr/share/man/man1" "$stage/usr/share/doc/cairn" "$stage/usr/share/bash-completion/completions"

install -m 0755 "$bin" "$stage/usr/bin/cairn"
# The unit is deploy/cairn.service with the packaged paths.
sed -e 's#/usr/local/bin/cairn#/usr/bin/cairn#g' \
    -e 's#^Documentation=.*#Documentation=man:cairn(1) file:///usr/share/doc/cairn/README.md#' \
    -e 's#^\# Installed by deploy/install.sh as .*#\# Installed by the cairn package; options in /etc/cairn.conf.#' \
    "$repo/deploy/cairn.service" >"$stage/usr/lib/systemd/system/cairn.service"
chmod 0644 "$stage/usr/lib/systemd/system/cairn.service"
grep -q '^ExecStart=/usr/bin/cairn ' "$stage/usr/lib/systemd/system/cairn.service" || die "the unit's ExecStart does not name /usr/bin/cairn"
for u in cairn-deliver.service cairn-deliver.timer cairn-deliver.path; do
    sed -e 's#/usr/local/bin/cairn#/usr/bin/cairn#g' \
        -e 's#^Documentation=.*#Documentation=man:cairn(1) file:///usr/share/doc/cairn/README.md#' \
        -e 's#^\# Installed by deploy/install.sh as .*#\# Installed by the cairn package.#' \
        "$repo/deploy/$u" >"$stage/usr/lib/systemd/system/$u"
    chmod 0644 "$stage/usr/lib/systemd/system/$u"
done
mkdir -p "$stage/usr/lib/NetworkManager/dispatcher.d"
install -m 0755 "$repo/deploy/90-cairn-deliver" "$stage/usr/lib/NetworkManager/dispatcher.d/90-cairn-deliver"
install -m 0644 "$repo/deploy/cairn.conf" "$stage/etc/cairn.conf"
mkdir -p "$stage/usr/lib/udev/rules.d"
install -m 0644 "$repo/deploy/60-cairn-button.rules" "$stage/usr/lib/udev/rules.d/60-cairn-button.rules"

MAN_DATE=$(date -u -d "$(sed -n 's/^ -- .*>  //p' "$here/changelog" | head -1)" +%Y-%m-%d) \
    bash "$repo/deploy/man/make-man.sh" "$bin" "$runner" | gzip -9n >"$stage/usr/share/man/man1/cairn.1.gz"
bash "$repo/deploy/man/make-completion.sh" "$bin" "$runner" >"$stage/usr/share/bash-completion/completions/cairn"
chmod 0644 "$stage/usr/share/bash-completion/completions/cairn"
install -m 0644 "$here/copyright" "$stage/usr/share/doc/cairn/copyright"
{
    if [ "$version" != "$source_version" ]; then
        printf 'cairn (%s) unstable; urgency=medium\n\n  * Test build of %s.\n\n -- cairn engineers <dev@cairn.invalid>  %s\n\n' \
            "$version" "$source_version" "$(date -u -R)"
    fi
    cat "$here/changelog"
} | gzip -9n >"$stage/usr/share/doc/cairn/changelog.gz"
install -m 0644 "$repo/deploy/README.md" "$stage/usr/share/doc/cairn/README.md"
install -m 0644 "$repo/deploy/PUT-IT-ON-A-BIKE.md" "$stage/usr/share/doc/cairn/PUT-IT-ON-A-BIKE.md"
install -m 0644 "$repo/deploy/DELIVERY.md" "$stage/usr/share/doc/cairn/DELIVERY.md"
mkdir -p "$stage/usr/share/lintian/overrides"
install -m 0644 "$here/lintian-overrides" "$stage/usr/share/lintian/overrides/cairn"

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" "$here/control.in" >"$stage/DEBIAN/control"
echo /etc/cairn.conf >"$stage/DEBIAN/conffiles"
for s in postinst prerm postrm; do install -m 0755 "$here/$s" "$stage/DEBIAN/$s"; done
(cd "$stage" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/md5sums" "$stage/DEBIAN/control" "$stage/DEBIAN/conffiles"

deb=$out/cairn_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "build-deb: $deb ($(stat -c %s "$deb") bytes)"
