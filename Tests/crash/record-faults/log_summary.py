#!/usr/bin/env python3
import sys, glob, os
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
import cairnlog
def norm(d):
    out = []
    for p in sorted(glob.glob(os.path.join(d, "*.cairn"))):
        f = cairnlog.LogFile(p)
        out.append("FILE %s trip %d part %d header_len %d damaged %s torn %d" % (os.path.basename(p), f.trip, f.part, f.header_len, f.damaged, f.torn))
        pts = []
        def flush():
            if pts:
                out.append("POINTS %d" % len(pts))
                for q in pts: out.append("  " + repr(q))
                pts.clear()
        for off, typ, payload in f.frames:
            seq, i = cairnlog.varint(payload, 0)
            if typ == 3: pts.extend(cairnlog.decode_points(payload, i)[0]); continue
            if typ == 7: pts.extend(cairnlog.decode_compact_points(payload, i)[0]); continue
            if typ == 255: continue
            body = payload[i:]
            flush()
            out.append("REC type %d %s" % (typ, body.hex() if typ != 1 else "(start, %d bytes)" % len(body)))
        flush()
    return out
if __name__ == "__main__":
    print("\n".join(norm(sys.argv[1])))
