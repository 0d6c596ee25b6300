#!/usr/bin/env python3
"""The street-aware attack on privacy zones (issue 38): homes on street grids, rides that follow
the streets, cut by cairn (the binary) or by a model of a cut, and the estimators an attacker
builds from what is published.

    python3 Tests/crash/privacy-zones/street-attack.py --bin CAIRN [--homes 0-5] [--radii 100,200,500,1000]
                                                      [--rides 5,10,20,50] [--json]
    python3 Tests/crash/privacy-zones/street-attack.py --model old|new|none ...   (a cut modelled here:
        0.3.0's offset circle, the square's disc with each visit cut along the path (--a, --S, --aim:
        the square's side, the reach and the aim in class radii), or the disc as asked)

The world (a generator the tests share, `world(seed)`):
- a street grid turned by a random angle, blocks 90-170 m each way (every street its own
  spacing), 14 km across;
- home in one of three layouts, by seed: mid-block (2 exits), a T-junction (3), a corner (4);
- each rider has favourite streets (a weight per street segment for all its rides), each ride
  its own mood (a weight per segment again): a ride goes home -> A -> B -> home along the
  cheapest streets, A 1.5-7 km away, B turned 20-100 degrees from A; 5 m a second, 1 Hz,
  GPS noise that wanders (2.5 m).

The estimators (each on the first and last written stretch of every ride):
- circle:   one centre through every ride's cut points, a radius per ride (the issue's fit);
- ring:     the circle's centre, the ring (smallest cut radius less r: the attacker is told r),
            each ride's first and last written stretch drawn back to the ring, a kernel vote;
- lines:    the point nearest (robust least squares) to every first/last stretch drawn back;
- chord:    the same with the line from the cut point through the ride's farthest point;
- vote:     where the stretches drawn back cross each other most (a kernel vote of crossings
            within 2 km of the cut points' centre);
- centroid: the mean of the cut points;
- centroid2: twice that less the circle's centre (a cut disc's exits lean halfway to home);
- box:      the middle of the widest gap between the streets the written stretches lie on;
- median, gmedian: the cut points' coordinate-wise and geometric medians;
- junction, junction2: the map's junction (three streets or more) nearest the circle's centre,
            or nearest the geometric median (the attacker has the map);
- routes:   on the map's street graph, the node from which the most written ends lie on a
            shortest route out (and back), at least r from every written point, ties to the least
            summed route length.
--keys K cuts each home with K keys; the table's medians are over homes and keys, and per key
(over the homes) the worst key's best estimator and how many keys put one below r.
The best estimator is the one whose median is smallest, chosen after the fact (so the table's
"best" is a lower bound on what any of them does alone)."""
import argparse, atexit, json, math, os, random, subprocess, sys, tempfile

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import dijkstra

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ridegen  # noqa: E402

LAYOUTS = ("mid-block", "T-junction", "corner")


def world(seed):
    """A street grid around home (at 0,0), its graph, and the home node."""
    rng = np.random.default_rng(seed)
    half = 7000.0
    def lines():
        a = [rng.uniform(-170, 0)]
        while a[-1] < half:
            a.append(a[-1] + rng.uniform(90, 170))
        b = [a[0] - rng.uniform(90, 170)]
        while b[-1] > -half:
            b.append(b[-1] - rng.uniform(90, 170))
        return np.array(sorted(b + a))
    xs, ys = lines(), lines()
    layout = LAYOUTS[seed % 3]
    nx, ny = len(xs), len(ys)
    node = lambda i, j: i * ny + j
    X = np.repeat(xs, ny)
    Y = np.tile(ys, nx)
    edges = []
    for i in range(nx):
        for j in range(ny):
            if i + 1 < nx:
                edges.append((node(i, j), node(i + 1, j)))
            if j + 1 < ny:
                edges.append((node(i, j), node(i, j + 1)))
    # home near the middle
    i0 = int(np.searchsorted(xs, 0.0))
    j0 = int(np.searchsorted(ys, 0.0))
    pts = [X, Y]
    if layout == "corner":
        home = node(i0, j0)
    elif layout == "T-junction":
        home = node(i0, j0)
        edges = [e for e in edges if e != (node(i0, j0 - 1), node(i0, j0))]  # the street south ends here
    else:
        a, b = node(i0, j0), node(i0 + 1, j0)
        f = rng.uniform(0.3, 0.7)
        hx, hy = X[a] + f * (X[b] - X[a]), Y[a]
        home = len(X)
        X = np.append(X, hx)
        Y = np.append(Y, hy)
        edges = [e for e in edges if e != (a, b)] + [(a, home), (home, b)]
    X, Y = X - X[home], Y - Y[home]
    ang = rng.uniform(0, math.pi / 2)
    c, s = math.cos(ang), math.sin(ang)
    X, Y = X * c - Y * s, X * s + Y * c
    e = np.array(edges)
    length = np.hypot(X[e[:, 0]] - X[e[:, 1]], Y[e[:, 0]] - Y[e[:, 1]])
    taste = np.exp(rng.normal(0, 0.25, len(e)))  # the rider's favourite streets
    return {"X": X, "Y": Y, "e": e, "len": length * taste, "home": home, "layout": layout, "rng": rng}


def route(w, rng, a, b):
    e, n = w["e"], len(w["X"])
    wt = w["len"] * np.exp(rng.normal(0, 0.15, len(e)))
    g = csr_matrix((np.concatenate([wt, wt]), (np.concatenate([e[:, 0], e[:, 1]]), np.concatenate([e[:, 1], e[:, 0]]))), shape=(n, n))
    _, pred = dijkstra(g, indices=a, return_predecessors=True)
    path = [b]
    while path[-1] != a:
        path.append(pred[path[-1]])
    return path[::-1]


def nearest_node(w, x, y):
    return int(np.argmin((w["X"] - x) ** 2 + (w["Y"] - y) ** 2))


def rides(w, count, seed):
    """`count` rides of home `w`: (N,2) arrays of metres east/north, 1 Hz."""
    rng = np.random.default_rng(seed * 7919 + 17)
    out = []
    X, Y, h = w["X"], w["Y"], w["home"]
    for _ in range(count):
        b0 = rng.uniform(0, 2 * math.pi)
        d0 = rng.uniform(1500, 6000)
        b1 = b0 + rng.choice((-1, 1)) * rng.uniform(math.radians(20), math.radians(100))
        d1 = d0 * rng.uniform(0.6, 1.2)
        A = nearest_node(w, d0 * math.sin(b0), d0 * math.cos(b0))
        B = nearest_node(w, d1 * math.sin(b1), d1 * math.cos(b1))
        nodes = route(w, rng, h, A) + route(w, rng, A, B)[1:] + route(w, rng, B, h)[1:]
        P = np.stack([X[nodes], Y[nodes]], 1)
        seg = np.diff(P, axis=0)
        L = np.hypot(seg[:, 0], seg[:, 1])
        cum = np.concatenate([[0], np.cumsum(L)])
        s = np.arange(0, cum[-1], 5.0)
        x = np.interp(s, cum, P[:, 0])
        y = np.interp(s, cum, P[:, 1])
        noise = np.zeros((len(s), 2))
        z = np.zeros(2)
        for i in range(len(s)):
            z = 0.9 * z + rng.normal(0, 2.5 * math.sqrt(1 - 0.81), 2)
            noise[i] = z
        out.append(np.stack([x, y], 1) + noise)
    return out


# ---- a cut modelled here (for comparison) -------------------------------------------------------

def model_cut(kind, rides_, r, keyseed):
    """Published segments per ride under a modelled cut: 'none' (the disc as asked), 'old'
    (cairn 0.3's: offset circle, per-ride radius)."""
    rng = random.Random(keyseed)
    R = 100.0
    while R < r:
        R *= math.sqrt(2)
    bearing = rng.uniform(0, 2 * math.pi)
    L = R * rng.uniform(1, 1.5)
    c = np.array([L * math.sin(bearing), L * math.cos(bearing)])
    if kind == "cur":
        return cur_cut(rides_, r, rng)
    if kind.startswith("new"):
        return new_cut(rides_, r, rng, kind)
    out = []
    for P in rides_:
        if kind == "none":
            cc, rad = np.zeros(2), r
        else:
            cc, rad = c, r + L + 1 + R * 0.5 * rng.random()
        keep = np.hypot(P[:, 0] - cc[0], P[:, 1] - cc[1]) > rad
        out.append(segments(P, keep))
    return out


PARAMS = {"a": 4.0, "S": 1.0, "aim": 2.0}


def new_cut(rides_, r, rng, kind):
    """The lattice cut: the class R (keyed phase), the disc's centre the keyed lattice point
    nearest home (spacing a R), radius a R / sqrt 2 + R; each visit to the disc hides a further
    keyed 0..S R of path on either side, then up to `aim` R more, to where the written stretch
    drawn back passes nearest the disc's centre (as cairn's PrivacyReach)."""
    a, S = PARAMS["a"], PARAMS["S"]
    phi = rng.random()
    k = math.ceil(math.log(r / 100.0, math.sqrt(2)) - phi) if r > 100 else 0
    R = max(100.0 * math.sqrt(2) ** (k + phi), r)
    R0 = 100.0 * math.sqrt(2) ** phi
    lam = a * R0 * 2 ** math.ceil(k / 2)
    th = rng.uniform(0, math.pi / 2)
    u = np.array([rng.uniform(-1e5, 1e5), rng.uniform(-1e5, 1e5)])
    c, s = math.cos(th), math.sin(th)
    rot = np.array([[c, -s], [s, c]])
    q = (rot.T @ np.zeros(2) - u) / lam
    C = rot @ ((np.floor(q) + 0.5) * lam + u)
    rho = lam / math.sqrt(2) * 1.05 + R + 1
    W = PARAMS.get("w", 0.0) * R
    out = []
    for P in rides_:
        inside = np.hypot(P[:, 0] - C[0], P[:, 1] - C[1]) <= rho
        keep = ~inside
        step = np.concatenate([[0], np.cumsum(np.hypot(*np.diff(P, axis=0).T))])
        i = 0
        n = len(P)
        while i < n:
            if inside[i]:
                j = i
                while j + 1 < n and inside[j + 1]:
                    j += 1
                pre, post = S * R * rng.random(), S * R * rng.random()
                lo_, hi_ = step[i] - pre, step[j] + post
                if W > 0:
                    hi_ = aim(P, step, hi_, W * (0.5 + 0.5 * rng.random()), 1, cap=hi_ + 2 * R)
                    lo_ = aim(P, step, lo_, W * (0.5 + 0.5 * rng.random()), -1, cap=lo_ - 2 * R)
                if PARAMS.get("aim", 0) > 0:
                    hi_ = decoy(P, step, hi_, C, 1, PARAMS["aim"] * R)
                    lo_ = decoy(P, step, lo_, C, -1, PARAMS["aim"] * R)
                keep[(step >= lo_) & (step <= hi_)] = False
                i = j + 1
            else:
                i += 1
        out.append(segments(P, keep))
    return out


def cur_cut(rides_, r, rng):
    """cairn's cut as built (PrivacyCut, without the climb near a square's edge): the class
    R = 100 m x 2^(k + phi) >= r, the keyed square of side 4 R holding home, the disc around its
    centre (half the diagonal x 1.05 + R), each visit cut (1.125 + S u) R further along the path
    each way, then up to aim R more to where the written stretch drawn back passes nearest the
    disc's centre."""
    phi = rng.random()
    R = 100.0 * 2 ** phi
    while R < PARAMS.get("share", 1.0) * r:
        R *= 2
    side = PARAMS["a"] * R
    th = rng.uniform(0, math.pi / 2)
    u = np.array([rng.uniform(0, 1e6), rng.uniform(0, 1e6)])
    c, s = math.cos(th), math.sin(th)
    rot = np.array([[c, -s], [s, c]])
    q = (rot.T @ np.zeros(2) - u) / side
    C = rot @ ((np.floor(q) + 0.5) * side + u)
    rho = side / math.sqrt(2) * 1.05 + max(R, r) + 1
    clip = PARAMS.get("clip", -1.0)
    out = []
    for P in rides_:
        dc = np.hypot(P[:, 0] - C[0], P[:, 1] - C[1])
        inside = dc <= rho
        keep = ~inside
        step = np.concatenate([[0], np.cumsum(np.hypot(*np.diff(P, axis=0).T))])
        # --clip m: the cut along the path stays within m class radii of the disc (the bound)
        outer = dc <= rho + clip * R if clip >= 0 else np.ones(len(P), bool)
        i, n = 0, len(P)
        while i < n:
            if inside[i]:
                j = i
                while j + 1 < n and inside[j + 1]:
                    j += 1
                pre = (PARAMS.get("least", 1.125) + PARAMS["S"] * rng.random()) * R
                post = (PARAMS.get("least", 1.125) + PARAMS["S"] * rng.random()) * R
                lo_, hi_ = step[i] - pre, step[j] + post
                hi_ = decoy(P, step, hi_, C, 1, PARAMS["aim"] * R)
                lo_ = decoy(P, step, lo_, C, -1, PARAMS["aim"] * R)
                keep[(step >= lo_) & (step <= hi_) & outer] = False
                i = j + 1
            else:
                i += 1
        out.append(segments(P, keep))
    return out


def aim(P, step, at, w, sign, cap):
    """The first distance along the path from `at` (forwards, or back for sign -1) where the
    line of the next 150 m of path passes at least w from home (0,0)."""
    n = len(P)
    x = at
    while (x <= cap if sign > 0 else x >= cap):
        i = int(np.searchsorted(step, x))
        if i <= 0 or i >= n:
            return x
        j = int(np.searchsorted(step, step[i] + sign * 150.0))
        j = min(max(j, 0), n - 1)
        d = P[j] - P[i]
        L = math.hypot(*d)
        if L > 50:
            off = abs(d[0] * P[i][1] - d[1] * P[i][0]) / L
            if off >= w:
                return x
        x += sign * 10.0
    return cap


def decoy(P, step, at, C, sign, span):
    """Where in [at, at + span] (forwards; back for sign -1) the line of the next 150 m of
    path, drawn back, passes nearest the disc's centre C."""
    n = len(P)
    best, bx = float("inf"), at
    x = at
    while abs(x - at) <= span:
        i = int(np.searchsorted(step, x))
        if i <= 0 or i >= n:
            break
        j = int(np.searchsorted(step, step[i] + sign * 150.0))
        j = min(max(j, 0), n - 1)
        d = P[j] - P[i]
        L = math.hypot(*d)
        if L > 50:
            u = d / L
            q = C - P[i]
            if q @ u < 0:
                off = abs(u[0] * q[1] - u[1] * q[0])
                if off < best:
                    best, bx = off, x
        x += sign * 10.0
    return bx


def segments(P, keep):
    segs, cur = [], []
    for p, k in zip(P, keep):
        if k:
            cur.append(p)
        elif cur:
            segs.append(np.array(cur))
            cur = []
    if cur:
        segs.append(np.array(cur))
    return segs


# ---- the binary ----------------------------------------------------------------------------------

_LOGS = {}
atexit.register(lambda: subprocess.run(["rm", "-rf", _LOGS["dir"]]) if "dir" in _LOGS else None)


def binary_cut(binary, rides_, r, keyseed, extra=()):
    # The logs of one set of rides are written once and cut under every radius and key.
    if _LOGS.get("rides") is not rides_:
        if "dir" in _LOGS:
            subprocess.run(["rm", "-rf", _LOGS["dir"]])
        d = tempfile.mkdtemp(prefix="cairn-street-")
        salt = random.Random(len(rides_) * 7919 + int(abs(rides_[0][-1][0])))
        for k, P in enumerate(rides_):
            t0 = ridegen.T0 + k * 86_400_000
            fixes = [(t0 + i * 1000,) + ridegen.to_ll(x, y) for i, (x, y) in enumerate(P)]
            ridegen.write_log(os.path.join(d, "%08d.cairn" % (k + 1)), k + 1, salt.getrandbits(32), fixes)
        _LOGS.update(rides=rides_, dir=d)
    d = _LOGS["dir"]
    rnd = random.Random(keyseed)
    for k in range(len(rides_)):
        rnd.getrandbits(32)  # the salts these seeds drew before: the same keys as before
    key = os.path.join(d, "privacy-key")
    with open(key, "wb") as f:
        f.write(rnd.getrandbits(128).to_bytes(16, "little"))
    os.chmod(key, 0o600)
    zone = "%.7f,%.7f,%g" % (ridegen.HOME[0], ridegen.HOME[1], r)
    p = subprocess.run([binary, "convert", d, "--to", "csv", "--config", "none", "--privacy-zone", zone, "--privacy-key", key] + list(extra),
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0 and "no trip with points" not in p.stderr:
        raise SystemExit("convert failed: %s" % p.stderr)
    lines = p.stdout.split("\n") if p.returncode == 0 else ["trip,lat,lon"]
    head = lines[0].split(",")
    ti, la, lo = head.index("trip"), head.index("lat"), head.index("lon")
    si = head.index("segment") if "segment" in head else None
    per = {}
    for line in lines[1:]:
        if not line:
            continue
        c = line.split(",")
        t = int(c[ti])
        sg = c[si] if si is not None else "0"
        per.setdefault(t, {}).setdefault(sg, []).append(ridegen.to_en(float(c[la]), float(c[lo])))
    out = []
    for k in range(len(rides_)):
        segs = per.get(k + 1, {})
        out.append([np.array(segs[s]) for s in sorted(segs, key=lambda v: int(v) if v.isdigit() else v)])
    return out


# ---- the estimators ------------------------------------------------------------------------------

def stretch(seg, back, length=150.0):
    """The cut point and the unit direction pointing back into the cut (away from the written
    stretch), from the first (or, back=False, last) `length` metres of a segment."""
    S = seg if back else seg[::-1]
    p = S[0]
    d = np.hypot(*(S - p).T)
    i = int(np.searchsorted(d, length))
    q = S[min(i, len(S) - 1)]
    v = p - q
    n = np.hypot(*v)
    return p, (v / n if n > 0 else np.zeros(2))


def far_point(segs, p):
    allp = np.concatenate(segs)
    return allp[int(np.argmax(np.hypot(*(allp - p).T)))]


def ends(pub):
    """Per ride with anything written: its first and last written point and the lines back."""
    out = []
    for segs in pub:
        if not segs or sum(len(s) for s in segs) < 5:
            continue
        a, da = stretch(segs[0], True)
        b, db = stretch(segs[-1], False)
        fa = far_point(segs, a)
        out.append({"a": a, "da": da, "b": b, "db": db, "far": fa})
    return out


def kasa_multi(E):
    """One centre, a radius per ride, through each ride's two cut points (linear least squares)."""
    n = len(E)
    A = np.zeros((2 * n, 2 + n))
    z = np.zeros(2 * n)
    for i, e in enumerate(E):
        for k, p in enumerate((e["a"], e["b"])):
            A[2 * i + k, 0:2] = 2 * p
            A[2 * i + k, 2 + i] = 1
            z[2 * i + k] = p @ p
    sol = np.linalg.lstsq(A, z, rcond=None)[0]
    c = sol[:2]
    radii = [math.sqrt(max(sol[2 + i] + c @ c, 0)) for i in range(n)]
    return c, radii


def robust_point(lines, start, iters=30, scale=100.0):
    """The point nearest to lines (p, unit d): IRLS with Cauchy weights."""
    x = start.copy()
    for _ in range(iters):
        M = np.zeros((2, 2))
        v = np.zeros(2)
        for p, d in lines:
            if not d.any():
                continue
            Pm = np.eye(2) - np.outer(d, d)
            r = Pm @ (x - p)
            wgt = 1.0 / (1.0 + (r @ r) / scale**2)
            # behind the cut point only (the line drawn back)
            if (x - p) @ d < 0:
                wgt *= 0.1
            M += wgt * Pm
            v += wgt * Pm @ p
        if abs(np.linalg.det(M)) < 1e-9:
            break
        x = np.linalg.solve(M, v)
    return x


def kde_mode(points, sigma=40.0):
    P = np.array(points)
    if len(P) == 0:
        return None
    d2 = ((P[:, None, :] - P[None, :, :]) ** 2).sum(-1)
    score = np.exp(-d2 / (2 * sigma**2)).sum(1)
    return P[int(np.argmax(score))]


def ring_vote(E, c, radii, r):
    L = max(min(radii) - r, 0.0)
    votes = []
    for e in E:
        for p, d in ((e["a"], e["da"]), (e["b"], e["db"])):
            # p + t d on |x - c| = L, the first t > 0
            f = p - c
            B = 2 * f @ d
            C = f @ f - L * L
            disc = B * B - 4 * C
            if disc >= 0:
                ts = [t for t in ((-B - math.sqrt(disc)) / 2, (-B + math.sqrt(disc)) / 2) if t > 0]
                if ts:
                    votes.append(p + min(ts) * d)
                    continue
            # no crossing: the ring's point nearest the line
            t = max(-(f @ d), 0)
            q = p + t * d - c
            nq = np.hypot(*q)
            votes.append(c + (q / nq * L if nq > 0 else np.zeros(2)))
    return kde_mode(votes, sigma=max(20.0, L / 8))


def crossing_vote(E, centre):
    lines = [(e["a"], e["da"]) for e in E] + [(e["b"], e["db"]) for e in E]
    pts = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            (p, d), (q, g) = lines[i], lines[j]
            M = np.array([d, -g]).T
            if abs(np.linalg.det(M)) < 0.2:
                continue
            t, s = np.linalg.solve(M, q - p)
            if t > 0 and s > 0:
                x = p + t * d
                if np.hypot(*(x - centre)) < 2000:
                    pts.append(x)
    return kde_mode(pts, sigma=40.0) if pts else centre


def box(lines, centre):
    """The street grid's frame from the lines' directions, then the widest gap between the lines
    used on each axis near the cut points' centre: the middle of the line-free box."""
    ang = [math.atan2(d[1], d[0]) % (math.pi / 2) for _, d in lines if d.any()]
    if not ang:
        return centre
    z = np.exp(4j * np.array(ang)).mean()
    th = np.angle(z) / 4
    c, s = math.cos(th), math.sin(th)
    out = []
    for axis in (0, 1):
        vals = []
        for p, d in lines:
            u = np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1]])
            q = np.array([c * p[0] + s * p[1], -s * p[0] + c * p[1]])
            if abs(u[axis]) > 0.9:  # a line along this axis: its offset on the other
                vals.append(q[1 - axis])
        cq = np.array([c * centre[0] + s * centre[1], -s * centre[0] + c * centre[1]])[1 - axis]
        vals = sorted(v for v in vals if abs(v - cq) < 3000)
        if len(vals) < 2:
            out.append(cq)
            continue
        gaps = [(vals[i + 1] - vals[i], (vals[i + 1] + vals[i]) / 2) for i in range(len(vals) - 1)]
        near = [g for g in gaps if abs(g[1] - cq) < 1500] or gaps
        out.append(max(near)[1])
    # out[0]: the offset across lines along x (a y value), out[1]: an x value
    yq, xq = out[0], out[1]
    return np.array([c * xq - s * yq, s * xq + c * yq])


def geometric_median(P, iters=100):
    """The point with the least summed distance to P (Weiszfeld)."""
    x = np.median(P, axis=0)
    for _ in range(iters):
        d = np.maximum(np.hypot(*(P - x).T), 1e-6)
        x = (P / d[:, None]).sum(0) / (1 / d).sum()
    return x


def junctions(w):
    """The street map's intersections (nodes of three or more streets): the attacker has the map."""
    if "junctions" not in w:
        deg = np.bincount(w["e"].ravel(), minlength=len(w["X"]))
        k = np.nonzero(deg >= 3)[0]
        w["junctions"] = np.stack([w["X"][k], w["Y"][k]], 1)
    return w["junctions"]


def nearest_junction(w, p):
    J = junctions(w)
    return J[int(np.argmin(np.hypot(*(J - p).T)))]


def street_graph(w):
    """The map's streets weighted by their length alone (the attacker does not know the rider's
    taste)."""
    if "graph" not in w:
        e, n = w["e"], len(w["X"])
        L = np.hypot(w["X"][e[:, 0]] - w["X"][e[:, 1]], w["Y"][e[:, 0]] - w["Y"][e[:, 1]])
        w["graph"] = csr_matrix((np.concatenate([L, L]), (np.concatenate([e[:, 0], e[:, 1]]), np.concatenate([e[:, 1], e[:, 0]]))), shape=(n, n))
    return w["graph"]


def routes_vote(w, pub, E, r, around):
    """Home is the node from which each ride's first and last written stretches lie on shortest
    routes out (and back), nearest those stretches, and at least r from every written point: for
    each written end, its node a0 and the node a1 150 m on; a node v is consistent with it when
    d(v, a0) + d(a0, a1) - d(v, a1) is small. The most consistent node, ties to the least summed
    route length to the ends."""
    X, Y = w["X"], w["Y"]
    pts = []
    for e in E:
        pts.append((e["a"], e["a"] - 150 * e["da"]))
        pts.append((e["b"], e["b"] - 150 * e["db"]))
    near = lambda p: int(np.argmin((X - p[0]) ** 2 + (Y - p[1]) ** 2))
    a0 = [near(p) for p, _ in pts]
    a1 = [near(q) for _, q in pts]
    idx = sorted(set(a0 + a1))
    D = dijkstra(street_graph(w), indices=idx)
    row = {v: i for i, v in enumerate(idx)}
    cand = np.nonzero(np.hypot(X - around[0], Y - around[1]) < 4000)[0]
    allp = np.concatenate([s for segs in pub for s in segs])
    score = np.zeros(len(cand))
    length = np.zeros(len(cand))
    for i, j in zip(a0, a1):
        d0, d1 = D[row[i]][cand], D[row[j]][cand]
        slack = d0 + D[row[i]][j] - d1
        score += np.exp(-np.maximum(slack, 0) / 60.0)
        length += d0
    # Nothing within r of home is written.
    from scipy.spatial import cKDTree
    far = cKDTree(allp).query(np.stack([X[cand], Y[cand]], 1))[0] > r
    score = np.where(far, score, -1)
    best = score.max()
    ok = np.nonzero(score >= best - 0.5)[0]
    v = cand[ok[int(np.argmin(length[ok]))]]
    return np.array([X[v], Y[v]])


def estimates(pub, r, w=None):
    E = ends(pub)
    if len(E) < 2:
        return None
    c, radii = kasa_multi(E)
    cutp = np.array([e[k] for e in E for k in ("a", "b")])
    centroid = cutp.mean(0)
    lines = [(e["a"], e["da"]) for e in E] + [(e["b"], e["db"]) for e in E]
    chords = []
    for e in E:
        for p in (e["a"], e["b"]):
            v = p - e["far"]
            n = np.hypot(*v)
            if n > 0:
                chords.append((p, v / n))
    return {
        "circle": c,
        "ring": ring_vote(E, c, radii, r),
        "lines": robust_point(lines, c),
        "chord": robust_point(chords, c, scale=300.0),
        "vote": crossing_vote(E, centroid),
        "centroid": centroid,
        "centroid2": 2 * centroid - c,
        "box": box(lines, centroid),
        "median": np.median(cutp, axis=0),
        "gmedian": geometric_median(cutp),
        "junction": nearest_junction(w, c) if w is not None else c,
        "junction2": nearest_junction(w, geometric_median(cutp)) if w is not None else c,
        "routes": routes_vote(w, pub, E, r, centroid) if w is not None else c,
    }


ESTIMATORS = ("circle", "ring", "lines", "chord", "vote", "centroid", "centroid2", "box", "median", "gmedian", "junction",
              "junction2", "routes")


def run(homes, radii, counts, cut, seed_base=0, keys=1):
    """{(r, n): {estimator: [[error per home] per key]}} and the nearest written point per (r, n).
    Key 0 is the key each home always had (1000 + seed); keys 1.. are further draws."""
    res, near = {}, {}
    for h in homes:
        w = world(seed_base + h)
        R = rides(w, max(counts), seed_base + h)
        for r in radii:
            for k in range(keys):
                pub = cut(R, r, 1000 + seed_base + h + 7777 * k)
                for n in counts:
                    est = estimates(pub[:n], r, w)
                    key = (r, n)
                    res.setdefault(key, {x: [[] for _ in range(keys)] for x in ESTIMATORS})
                    allp = [s for segs in pub[:n] for s in segs]
                    nearest = min((float(np.min(np.hypot(*s.T))) for s in allp), default=float("inf"))
                    near[key] = min(near.get(key, float("inf")), nearest)
                    for x in ESTIMATORS:
                        res[key][x][k].append(float(np.hypot(*est[x])) if est is not None else float("inf"))
    return res, near


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin")
    ap.add_argument("--model", choices=("none", "old", "new", "cur"))
    ap.add_argument("--homes", default="0-5")
    ap.add_argument("--radii", default="100,200,500,1000")
    ap.add_argument("--rides", default="5,10,20,50")
    ap.add_argument("--seed-base", type=int, default=0)
    ap.add_argument("--keys", type=int, default=1, help="key draws per home (medians over homes, per key)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--json-out", help="also write the rows as JSON to this file")
    ap.add_argument("--merge", help="FILE,FILE: tabulate runs' --json-out together (no cut)")
    ap.add_argument("--a", type=float, default=PARAMS["a"])
    ap.add_argument("--S", type=float, default=PARAMS["S"])
    ap.add_argument("--w", type=float, default=0.0)
    ap.add_argument("--least", type=float, default=1.125)
    ap.add_argument("--aim", type=float, default=PARAMS["aim"])
    ap.add_argument("--share", type=float, default=1.0, help="model cur: the least class radius in zone radii")
    ap.add_argument("--clip", type=float, default=-1.0, help="model cur: the path cut stays within this many class radii of the disc")
    a = ap.parse_args()
    PARAMS["a"], PARAMS["S"], PARAMS["w"], PARAMS["aim"] = a.a, a.S, a.w, a.aim
    PARAMS["least"] = a.least
    PARAMS["share"], PARAMS["clip"] = a.share, a.clip
    homes = []
    for part in a.homes.split(","):
        lo, _, hi = part.partition("-")
        homes += list(range(int(lo), int(hi or lo) + 1))
    radii = [float(x) for x in a.radii.split(",")]
    counts = [int(x) for x in a.rides.split(",")]
    if a.bin:
        cut = lambda R, r, k: binary_cut(a.bin, R, r, k)
    else:
        cut = lambda R, r, k: model_cut(a.model or "old", R, r, k)
    if a.merge:
        # Runs of other homes (their --json-out), put together: the medians over all their homes.
        res, near, homes, keys = {}, {}, [], a.keys
        for path in a.merge.split(","):
            for x in json.load(open(path)):
                k = (x["radius_m"], x["rides"])
                keys = x["keys"]
                res.setdefault(k, {e: [[] for _ in range(keys)] for e in ESTIMATORS})
                for e in ESTIMATORS:
                    for i, errs in enumerate(x["errors_m"][e]):
                        res[k][e][i] += errs
                near[k] = min(near.get(k, float("inf")), x["nearest_written_m"])
        homes = [0] * len(next(iter(res.values()))[ESTIMATORS[0]][0])
        a.keys = keys
    else:
        res, near = run(homes, radii, counts, cut, a.seed_base, a.keys)
    rows = []
    for (r, n), v in sorted(res.items()):
        # The median over homes and keys together; and per key (over the homes), the worst key.
        med = {x: float(np.median(sum(v[x], []))) for x in ESTIMATORS}
        per_key = {x: [float(np.median(e)) for e in v[x]] for x in ESTIMATORS}
        best = min(med, key=med.get)
        worst_key = min(min(per_key[x]) for x in ESTIMATORS)
        worst_est = min(ESTIMATORS, key=lambda x: min(per_key[x]))
        keys_below = max(sum(m < r for m in per_key[x]) for x in ESTIMATORS)
        rows.append({"radius_m": r, "rides": n, "homes": len(homes), "keys": a.keys, "median_m": med, "best": best,
                     "best_median_m": med[best], "best_share": med[best] / r, "per_key_median_m": per_key,
                     "worst_key_share": worst_key / r, "worst_key_estimator": worst_est, "keys_below_r": keys_below,
                     "nearest_written_m": near[(r, n)], "errors_m": v})
    if a.json_out:
        with open(a.json_out, "w") as f:
            json.dump(rows, f)
    if a.json:
        print(json.dumps(rows))
        return
    print("| r | rides | " + " | ".join(ESTIMATORS) + " | best / r | worst key / r | keys below r | nearest written |")
    print("|---:|---:|" + "---:|" * len(ESTIMATORS) + "---:|---:|---:|---:|")
    for x in rows:
        print("| %g m | %d | " % (x["radius_m"], x["rides"]) + " | ".join("%.0f" % x["median_m"][k] for k in ESTIMATORS)
              + " | %.2f (%s) | %.2f (%s) | %d of %d | %.0f m |" % (x["best_share"], x["best"], x["worst_key_share"],
                                                                  x["worst_key_estimator"], x["keys_below_r"], x["keys"],
                                                                  x["nearest_written_m"]))


if __name__ == "__main__":
    main()
