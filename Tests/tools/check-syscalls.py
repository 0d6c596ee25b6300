#!/usr/bin/env python3
"""Every system call through CairnSystem: names any module that calls the C library's system-call
wrappers or OS services itself.

After a debug build (`swift build`), lists the undefined symbols (`nm -u`) of each object file of
the modules below and fails on any that is not a pure function in ALLOWED: memory and string
helpers, math, the stack protector, the Swift runtime, and for CairnDevice libgps (the gpsd edge
itself). Everything else (open, stat, getenv, signal, clock_gettime, exit, ...) belongs in
CairnSystem, the one layer where system calls are made, EINTR retried and errno typed.

    python3 Tests/tools/check-syscalls.py [--build-dir .build/debug]

Prints `check-syscalls: MODULE: SOURCE.swift.o: SYMBOL` per call outside CairnSystem, then
`check-syscalls: N modules, M objects, K calls outside CairnSystem`; exits 1 when K > 0, 2 when
the objects are missing (build first).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys

# The modules that must make no system call of their own (CairnSystem is where they are made).
MODULES = ["CairnCore", "CairnLog", "CairnExport", "CairnDevice", "CairnRecorder", "cairn"]

# Pure functions: no system call, no OS state.
MEMORY = {
    "memset", "memcpy", "memmove", "memchr", "memcmp", "bzero",
    "malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "malloc_usable_size",
    "strlen", "strnlen", "strcmp", "strncmp", "strchr", "strrchr", "strdup", "strndup",
}
MATH = {
    base + suffix
    for base in [
        "sqrt", "cbrt", "hypot", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
        "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
        "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow",
        "floor", "ceil", "round", "rint", "nearbyint", "trunc", "lround", "llround", "lrint", "llrint",
        "fmod", "remainder", "fma", "fmin", "fmax", "fabs", "copysign", "ldexp", "frexp", "modf",
    ]
    for suffix in ["", "f", "l"]
}
RUNTIME = {"__stack_chk_fail"}
ALLOWED = MEMORY | MATH | RUNTIME
SWIFT_PREFIXES = ("$s", "swift_", "_swift")
# The C library's variadic calls reach Swift through its overlay (Glibc, Musl) as Swift functions
# (`$s5Glibc4open...`): those are system calls too. The overlay's constants (S_IFMT, SIG_IGN) and
# errno are not.
OVERLAY_CALLS = {"open", "openat", "fcntl", "ioctl", "prctl"}

# Per module: libgps is the gpsd edge itself (CairnDevice's GpsdSource), not a system call of ours.
MODULE_PREFIXES = {"CairnDevice": ("gps_",)}
MODULE_ALLOWED = {"CairnDevice": {"cairn_gps_shim_linked"}}

# Calls let through while the files that make them are being changed elsewhere (module, source
# path inside Sources/<module>, symbol): empty, and meant to stay so. Nothing else is let through.
PENDING: set = set()


def overlay_call(symbol):
    """The C call a Swift overlay symbol is (`$s5Glibc4open...` -> open), or None."""
    for overlay in ("Glibc", "Musl"):
        head = f"$s{len(overlay)}{overlay}"
        if not symbol.startswith(head):
            continue
        rest = symbol[len(head):]
        digits = len(rest) - len(rest.lstrip("0123456789"))
        if digits == 0:
            return None
        name = rest[digits:digits + int(rest[:digits])]
        return name if name in OVERLAY_CALLS else None
    return None


def allowed(module, symbol):
    if symbol in ALLOWED or symbol.startswith(SWIFT_PREFIXES):
        return True
    if symbol.startswith(MODULE_PREFIXES.get(module, ())):
        return True
    return symbol in MODULE_ALLOWED.get(module, set())


def sources_by_object(module_dir, module):
    """Object file name -> source path inside Sources/<module>, from SwiftPM's output file map."""
    names = {}
    try:
        with open(os.path.join(module_dir, "output-file-map.json"), encoding="utf-8") as f:
            entries = json.load(f)
    except (OSError, ValueError):
        return names
    marker = os.sep + os.path.join("Sources", module) + os.sep
    for source, outputs in entries.items():
        obj = outputs.get("object") if isinstance(outputs, dict) else None
        if not source or not obj:
            continue
        i = source.rfind(marker)
        names[os.path.basename(obj)] = source[i + len(marker):] if i >= 0 else os.path.basename(source)
    return names


def undefined(obj):
    out = subprocess.run(["nm", "-u", obj], check=True, capture_output=True, text=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def main():
    parser = argparse.ArgumentParser(description="Fails on system calls made outside CairnSystem.")
    parser.add_argument("--build-dir", default=".build/debug", help="the debug build's directory (default .build/debug)")
    args = parser.parse_args()

    if shutil.which("nm") is None:
        print("check-syscalls: nm not found (binutils)", file=sys.stderr)
        return 2
    objects = 0
    violations = []
    pending_seen = set()
    for module in MODULES:
        module_dir = os.path.join(args.build_dir, module + ".build")
        objs = sorted(f for f in os.listdir(module_dir) if f.endswith(".o")) if os.path.isdir(module_dir) else []
        if not objs:
            print(
                f"check-syscalls: no object files in {module_dir}: build first (swift build), or give --build-dir",
                file=sys.stderr,
            )
            return 2
        sources = sources_by_object(module_dir, module)
        for obj in objs:
            objects += 1
            source = sources.get(obj, obj[: -len(".o")])
            for symbol in sorted({overlay_call(s) or s for s in undefined(os.path.join(module_dir, obj))}):
                if allowed(module, symbol):
                    continue
                if (module, source, symbol) in PENDING:
                    pending_seen.add((module, source, symbol))
                    continue
                violations.append(f"check-syscalls: {module}: {os.path.basename(source)}.o: {symbol}")
    for line in violations:
        print(line)
    # A pending entry no longer needed is said, so the list only shrinks.
    for module, source, symbol in sorted(PENDING - pending_seen):
        print(f"check-syscalls: note: PENDING {module}: {source}: {symbol} is no longer called; remove it from the list")
    print(f"check-syscalls: {len(MODULES)} modules, {objects} objects, {len(violations)} calls outside CairnSystem")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
