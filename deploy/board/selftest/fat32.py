"""Just enough FAT32 to craft what a power cut (or real damage) leaves on a vfat log disk, for
the board's self-checks: the dirty bit, a stale free count, a stray cluster, a directory entry
pointing at a free cluster, two files sharing clusters. Root directory only (one cluster)."""
import struct


class Fat32:
    def __init__(self, img):
        self.img = img
        with open(img, "rb") as f:
            bs = f.read(512)
        self.bps, self.spc = struct.unpack_from("<HB", bs, 11)
        self.reserved, self.nfats = struct.unpack_from("<HB", bs, 14)
        self.fatsz, = struct.unpack_from("<I", bs, 36)
        self.root, = struct.unpack_from("<I", bs, 44)
        self.fsinfo, = struct.unpack_from("<H", bs, 48)
        self.data = (self.reserved + self.nfats * self.fatsz) * self.bps

    def _rw(self, off, n=None, data=None):
        with open(self.img, "r+b") as f:
            f.seek(off)
            if data is None:
                return f.read(n)
            f.write(data)

    def cluster_off(self, c):
        return self.data + (c - 2) * self.spc * self.bps

    def fat(self, c, value=None):
        if value is None:
            return struct.unpack("<I", self._rw(self.reserved * self.bps + 4 * c, 4))[0] & 0x0FFFFFFF
        for k in range(self.nfats):
            self._rw((self.reserved + k * self.fatsz) * self.bps + 4 * c, data=struct.pack("<I", value))

    def entries(self):
        """{long name: (offset of its short entry, first cluster, size)} of the root directory."""
        base = self.cluster_off(self.root)
        d = self._rw(base, self.spc * self.bps)
        out, lfn = {}, {}
        for i in range(0, len(d), 32):
            e = d[i:i + 32]
            if e[0] == 0:
                break
            if e[0] == 0xE5:
                lfn = {}
                continue
            if e[11] == 0x0F:
                part = e[1:11] + e[14:26] + e[28:32]
                lfn[e[0] & 0x1F] = part.decode("utf-16-le").split("\0")[0].rstrip("\uffff")
                continue
            if e[11] & 0x08:  # the volume label
                continue
            name = "".join(lfn[k] for k in sorted(lfn)) if lfn else e[0:8].decode().strip()
            hi, lo = struct.unpack_from("<H", e, 20)[0], struct.unpack_from("<H", e, 26)[0]
            out[name] = (base + i, hi << 16 | lo, struct.unpack_from("<I", e, 28)[0])
            lfn = {}
        return out

    def set_first_cluster(self, name, c):
        off = self.entries()[name][0]
        self._rw(off + 20, data=struct.pack("<H", c >> 16))
        self._rw(off + 26, data=struct.pack("<H", c & 0xFFFF))

    def chain(self, c):
        out = []
        while 2 <= c < 0x0FFFFFF8 and len(out) < 1 << 16:
            out.append(c)
            c = self.fat(c)
        return out

    def set_dirty(self):
        """What Linux's vfat sets while mounted (boot sector offset 65, bit 0; not the backup)."""
        b = self._rw(65, 1)[0]
        self._rw(65, data=bytes([b | 1]))

    def set_free_count(self, n):
        self._rw(self.fsinfo * self.bps + 488, data=struct.pack("<I", n))

    def stray_cluster(self):
        """A cluster the FAT calls used that no file reaches (a cut between the two writes)."""
        c = max(max(self.chain(v[1]) or [2]) for v in self.entries().values()) + 10
        self.fat(c, 0x0FFFFFFF)
        return c
