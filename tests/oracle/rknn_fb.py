"""tests/oracle/rknn_fb.py: a FlatBuffer walk over a Toolkit2 .rknn, the
tests' own reader (independent of runtime/model/flatbuf.c).

The FlatBuffer starts at byte 64 of the file; its size is the u64 at byte 16
(docs/rknn-format.md). Offsets below are relative to that start. Model slots
used by the tests: model slot 2 the graphs; graph slot 0 the tensors, slot 1
the nodes, slot 10 the task where each core count's tiling starts; tensor
slot 5 its name, 10/11 scale/zero point; node slot 6 its task list (model-1
files)."""
import struct


class FB:
    def __init__(self, path):
        self.file = open(path, 'rb').read()
        self.fb = self.file[64: 64 + struct.unpack_from('<Q', self.file, 16)[0]]

    def u32(self, o):
        return struct.unpack_from('<I', self.fb, o)[0]

    def vtable(self, t):
        return t - struct.unpack_from('<i', self.fb, t)[0]

    def slot(self, t, k):
        """Where table t's field k is, or None when absent."""
        vt = self.vtable(t)
        n = (struct.unpack_from('<H', self.fb, vt)[0] - 4) // 2
        f = struct.unpack_from('<H', self.fb, vt + 4 + 2 * k)[0] if k < n else 0
        return t + f if f else None

    def tables(self, t, k):
        """The tables of vector field k of table t ([] when absent)."""
        o = self.slot(t, k)
        if o is None:
            return []
        o += self.u32(o)
        return [o + 4 + 4 * i + self.u32(o + 4 + 4 * i) for i in range(self.u32(o))]

    def first(self, t, k, fmt):
        """The first element of vector field k, or None."""
        o = self.slot(t, k)
        if o is None:
            return None
        o += self.u32(o)
        return struct.unpack_from(fmt, self.fb, o + 4)[0] if self.u32(o) else None

    def u32s(self, t, k):
        """The uint32 vector field k of table t ([] when absent)."""
        o = self.slot(t, k)
        if o is None:
            return []
        o += self.u32(o)
        return [self.u32(o + 4 + 4 * i) for i in range(self.u32(o))]

    def string(self, t, k):
        o = self.slot(t, k)
        o += self.u32(o)
        return self.fb[o + 4: o + 4 + self.u32(o)].decode()

    def graph(self):
        return self.tables(self.u32(0), 2)[0]
