from gapfill_check import *
import copy
os.makedirs(f"{OUT}/l", exist_ok=True)
def sc(name, items, expect=None, extra=(), **kw):
    p = f"{OUT}/l/{name}.cairn"
    write(p, items, **kw)
    run(name, p, usable_gaps([(f, v) for f, _, v in items]), expect, extra)
only = sys.argv[1:] 
def want(n): return not only or n in only
if want("drop"): sc("drop", base(drop=((100, 30),)), True)
if want("thin"): sc("thin", base(thin=((100, 30),)), False)
if want("bad"): sc("bad", base(bad=((100, 30),)), True)
if want("lead"): sc("lead", base(drop=((100, 30),), thin=((200, 40),)), None, lead=True)
if want("hz10"): sc("hz10", base(n=4000, hz=10, drop=((100, 30),), thin=((200, 40),)), None, hz=10)
if want("both"): sc("both", base(drop=((100, 30),), thin=((200, 40),)), None)
if want("dup"):
    sc("dup", base(drop=((100, 30),), thin=((200, 40),)), None, raw_mut=lambda i, it: it + it)
if want("shuf"):
    def sh(i, it):
        it = list(it); random.Random(i).shuffle(it); return it
    sc("shuf", base(drop=((100, 30),), thin=((200, 40),)), None, raw_mut=sh)
if want("rev"):
    sc("rev", base(drop=((100, 30),), thin=((200, 40),)), None, raw_mut=lambda i, it: list(reversed(it)))
if want("pz"):  # a privacy zone whose edge lies inside the 30 s dropout (first point kept: t=130)
    sc("pz", base(drop=((100, 30),)), False, extra=("--privacy-zone", "47.3769033,8.5417762,465"))
