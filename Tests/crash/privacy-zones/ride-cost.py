#!/usr/bin/env python3
"""What a privacy zone's cut costs the rider (issue 38, attack-r21 case 12), through the binary.

    python3 Tests/crash/privacy-zones/ride-cost.py --bin CAIRN [--radii 100,200,300,500,1000]
                                                    [--keys 20] [--rides 20]

For each radius and each of `--keys` keys, `convert` cuts (the zone on home):
- `--rides` rides straight out from home for 20 km (1 Hz, 5 m a second, a bearing each): how
  far along each the first written point is (km hidden);
- `--rides` rides of about 10 km from home and back along a street grid (street-attack.py's
  world, out 3.5-4.5 km and home another way): the share of their points written, and how many
  were not written at all;
- the farthest cut point from home on any ride, in zone radii.
Medians and extremes over keys x rides. Nothing is tuned on these seeds."""
import argparse, math, os, random, subprocess, sys, tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ridegen  # noqa: E402
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("sa", os.path.join(HERE, "street-attack.py"))
sa = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sa)


def straight(rng):
    b = rng.uniform(0, 2 * math.pi)
    d = np.arange(0, 20000, 5.0)
    return np.stack([d * math.sin(b), d * math.cos(b)], 1)


def loop(seed):
    """About 10 km: home, out to a point 3.5-4.5 km away, home another way (streets)."""
    w = sa.world(seed)
    rng = np.random.default_rng(seed * 31 + 5)
    b0 = rng.uniform(0, 2 * math.pi)
    d0 = rng.uniform(3500, 4500)
    A = sa.nearest_node(w, d0 * math.sin(b0), d0 * math.cos(b0))
    nodes = sa.route(w, rng, w["home"], A) + sa.route(w, rng, A, w["home"])[1:]
    P = np.stack([w["X"][nodes], w["Y"][nodes]], 1)
    L = np.concatenate([[0], np.cumsum(np.hypot(*np.diff(P, axis=0).T))])
    s = np.arange(0, L[-1], 5.0)
    return np.stack([np.interp(s, L, P[:, 0]), np.interp(s, L, P[:, 1])], 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--radii", default="100,200,300,500,1000")
    ap.add_argument("--keys", type=int, default=20)
    ap.add_argument("--rides", type=int, default=20)
    ap.add_argument("--seed", type=int, default=900)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    rides = [straight(rng) for _ in range(a.rides)] + [loop(a.seed + i) for i in range(a.rides)]
    d = tempfile.mkdtemp(prefix="cairn-cost-")
    for k, P in enumerate(rides):
        t0 = ridegen.T0 + k * 86_400_000
        ridegen.write_log(os.path.join(d, "%08d.cairn" % (k + 1)), k + 1, rng.getrandbits(32),
                          [(t0 + i * 1000,) + ridegen.to_ll(x, y) for i, (x, y) in enumerate(P)])
    print("| r | km hidden straight out: median | max | 10 km ride kept: median | least | whole rides hidden | farthest cut / r |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for r in [float(x) for x in a.radii.split(",")]:
        hid, kept, whole, far = [], [], 0, 0.0
        for key in range(a.keys):
            kf = os.path.join(d, "privacy-key")
            with open(kf, "wb") as f:
                f.write(random.Random(a.seed * 1000 + key).getrandbits(128).to_bytes(16, "little"))
            os.chmod(kf, 0o600)
            zone = "%.7f,%.7f,%g" % (ridegen.HOME[0], ridegen.HOME[1], r)
            p = subprocess.run([a.bin, "convert", d, "--to", "csv", "--config", "none", "--privacy-zone", zone, "--privacy-key", kf],
                               capture_output=True, text=True, timeout=600)
            lines = p.stdout.split("\n") if p.returncode == 0 else ["trip,lat,lon"]
            head = lines[0].split(",")
            ti, la, lo = head.index("trip"), head.index("lat"), head.index("lon")
            per = {}
            for line in lines[1:]:
                if line:
                    c = line.split(",")
                    per.setdefault(int(c[ti]), []).append(ridegen.to_en(float(c[la]), float(c[lo])))
            for k, P in enumerate(rides):
                got = per.get(k + 1, [])
                # Written points matched back to the ride (the CSV rounds positions).
                written = np.zeros(len(P), bool)
                if got:
                    G = np.array(got)
                    from scipy.spatial import cKDTree
                    dist, idx = cKDTree(P).query(G)
                    written[idx[dist < 2]] = True
                cut = ~written
                dh = np.hypot(P[:, 0], P[:, 1])
                if cut.any():
                    far = max(far, dh[cut].max() / r)
                if k < a.rides:
                    first = np.argmax(written) if written.any() else len(P)
                    hid.append(first * 5 / 1000)
                else:
                    kept.append(written.mean())
                    whole += not written.any()
        print("| %g m | %.2f | %.2f | %.0f %% | %.0f %% | %d of %d | %.1f |" % (
            r, np.median(hid), max(hid), 100 * np.median(kept), 100 * min(kept), whole, len(kept), far))
    subprocess.run(["rm", "-rf", d])


if __name__ == "__main__":
    main()
