#!/usr/bin/env python3
"""Makes lld's --symbol-ordering-file for deploy/make-link-order.sh.

  link-order.py profile CALLGRIND NM MAP > ORDER   the functions a callgrind run executed
  link-order.py faults NM ORDER < ADDRESSES         appends the functions page faults hit

Every name at an executed function's address is listed (identical-code folding and ifunc targets
give one address several names). Functions that share one large input section (the standard
library's Swift code and libc objects come as one section each) go after the others: placed
among them, each such section would push the small ones apart.
"""
import bisect
import re
import sys

LARGE_SECTION = 65536


def symbols(nm_path):
    """(sorted addresses, address -> names, name -> address) of the text symbols in `nm -S`."""
    by_addr, by_name = {}, {}
    for line in open(nm_path):
        p = line.split()
        if len(p) == 4 and p[2] in 'tTwWiI':
            a = int(p[0], 16)
            by_addr.setdefault(a, []).append(p[3])
            by_name.setdefault(p[3], a)
    return sorted(by_addr), by_addr, by_name


def section_sizes(map_path):
    """name -> size of the input section holding it, from lld's -Map output."""
    sizes, current = {}, 0
    for line in open(map_path):
        m = re.match(r'\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+( +)(\S.*)$', line)
        if not m:
            continue
        if len(m.group(2)) <= 10:  # an input section line; symbols are indented further
            current = int(m.group(1), 16)
        else:
            sizes.setdefault(m.group(3), current)
    return sizes


def containing(addrs, a):
    k = bisect.bisect_right(addrs, a) - 1
    return addrs[k] if k >= 0 else None


def profile(cg_path, nm_path, map_path):
    addrs, by_addr, by_name = symbols(nm_path)
    sizes = section_sizes(map_path)
    names, seen = [], set()
    for line in open(cg_path):
        m = re.match(r'^c?fn=\((\d+)\)(?: (.*))?$', line.rstrip('\n'))
        if m and m.group(2) and m.group(1) not in seen:
            seen.add(m.group(1))
            names.append(re.sub(r"'\d+$", '', m.group(2)))  # callgrind's recursion suffix
    small, large, out = [], [], set()
    for n in names:
        a = containing(addrs, int(n, 16)) if n.startswith('0x') else by_name.get(n)
        for s in by_addr.get(a, []):
            if s not in out:
                out.add(s)
                (large if sizes.get(s, 0) > LARGE_SECTION else small).append(s)
    sys.stdout.write(''.join(s + '\n' for s in small + large))
    print(f'link-order: {len(names)} functions ran, {len(small)} names in small sections, '
          f'{len(large)} in large ones', file=sys.stderr)


def faults(nm_path, order_path):
    addrs, by_addr, _ = symbols(nm_path)
    have = set(line.strip() for line in open(order_path))
    new = []
    for line in sys.stdin:
        try:
            a = containing(addrs, int(line.split()[0], 16))
        except (ValueError, IndexError):
            continue
        if a is None or any(s in have for s in by_addr[a]):
            continue
        for s in by_addr[a]:
            have.add(s)
            new.append(s)
    with open(order_path, 'a') as f:
        f.write(''.join(s + '\n' for s in new))
    print(len(new))


if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == 'profile':
        profile(*sys.argv[2:5])
    elif len(sys.argv) == 4 and sys.argv[1] == 'faults':
        faults(*sys.argv[2:4])
    else:
        sys.exit(__doc__)
