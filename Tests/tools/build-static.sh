#!/usr/bin/env bash
# Builds the release binary fully static (Swift runtime, glibc and libgps.a all linked in) and
# checks the promise: `file` says statically linked, `ldd` says not a dynamic executable.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v swift >/dev/null && [ -x /opt/swift/usr/bin/swift ]; then export PATH=/opt/swift/usr/bin:$PATH; fi
swift build -c release --product cairn --static-swift-stdlib -Xswiftc -static-executable 2>&1 \
  | grep -v -E "Using 'dlopen' in statically linked|getaddrinfo|getprotobyname" || true
bin=.build/release/cairn
[ -x "$bin" ] || { echo "build-static: $bin was not built" >&2; exit 1; }
if ! file "$bin" | grep -q "statically linked"; then
  echo "build-static: $bin is not statically linked: $(file "$bin")" >&2; exit 1
fi
if ldd "$bin" >/dev/null 2>&1; then
  echo "build-static: ldd still lists libraries for $bin" >&2; ldd "$bin" >&2; exit 1
fi
echo "build-static: $bin is static ($(stat -c %s "$bin") bytes)"
