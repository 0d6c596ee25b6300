"""The log directory the deliver tests send: real fixture logs (Tests/Fixtures/logs), given trip
ids of their own, and a crafted trip in two parts; `grow` adds a part to a delivered trip."""
import os, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "Tests", "crash"))
sys.path.insert(0, os.path.join(REPO, "Tests", "crash", "export-prune"))
import cairnlog  # noqa: E402
import craftlib  # noqa: E402

FIXTURES = os.path.join(REPO, "Tests", "Fixtures", "logs")


def retarget(data, trip):
    """The same log as trip `trip`: the header's trip id and its (unsalted) CRC; the frames are
    salted with the header's salt only, so they stay valid."""
    h = bytearray(data[:32])
    struct.pack_into("<Q", h, 16, trip)
    struct.pack_into("<I", h, 28, cairnlog.crc32c(bytes(h[:28])) ^ 0xFFFFFFFF)
    return bytes(h) + data[32:]


def make(d):
    """Five files, four finished trips: 1 and 3 a real 2-hour ride (format 1), 2 the crafted-values
    fixture (no trip end: recovered), 4 crafted in two parts (files 4 and 5)."""
    os.makedirs(d, exist_ok=True)
    ride = open(os.path.join(FIXTURES, "format1-ride.cairn"), "rb").read()
    values = open(os.path.join(FIXTURES, "crafted-values", "00000001.cairn"), "rb").read()
    for name, data in (("00000001.cairn", retarget(ride, 1)), ("00000002.cairn", retarget(values, 2)),
                       ("00000003.cairn", retarget(ride, 3))):
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    t0 = 1_750_000_000_000
    fx = craftlib.fixes(t0, 600, seed=4)
    craftlib.write(os.path.join(d, "00000004.cairn"), 4, fx[:300], closed=False, part=0)
    craftlib.write(os.path.join(d, "00000005.cairn"), 4, fx[300:], closed=True, part=1)
    return d


def make_other(d):
    """Another board's trip 4 under the same names (files 4 and 5): other fixes, other salts."""
    fx = craftlib.fixes(1_751_000_000_000, 500, lat=47.5, seed=9)
    craftlib.write(os.path.join(d, "00000004.cairn"), 4, fx[:250], closed=False, part=0, salt=0x0B0A4D02)
    craftlib.write(os.path.join(d, "00000005.cairn"), 4, fx[250:], closed=True, part=1, salt=0x0B0A4D03)


def grow(d):
    """Trip 2 goes on in a new part (a restart): file 6, part 1 of trip 2, closed."""
    fx = craftlib.fixes(1_748_800_000_000, 120, lat=47.41, seed=6)
    return craftlib.write(os.path.join(d, "00000006.cairn"), 2, fx, closed=True, part=1)
