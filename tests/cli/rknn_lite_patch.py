"""Writes a copy of an RV1103/RV1106 ("lite") .rknn file with one register
write of one task changed (docs/rknn-format.md "RV1103/RV1106 model data":
the 6-word header at 64, the task table after it, 40-byte records with the
register command count at +24 and their offset at +32, then 64-bit commands
whose low 16 bits are the register and bits 16..47 the value).

usage: rknn_lite_patch.py IN OUT TASK REGISTER VALUE   (numbers as 0x.. or decimal)
exits 1 when the task writes no such register."""
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
task, reg, val = (int(a, 0) for a in sys.argv[3:6])
b = bytearray(open(src, 'rb').read())
d = 64
w = struct.unpack_from('<6I', b, d)
if task < 0 or task >= w[2]:
    sys.exit(f'task {task}: the file has {w[2]}')
rec = d + 64 + 40 * task
n = struct.unpack_from('<I', b, rec + 24)[0]
cmd = d + 64 + w[1] + struct.unpack_from('<Q', b, rec + 32)[0]
for k in range(n):
    e, = struct.unpack_from('<Q', b, cmd + 8 * k)
    if e & 0xffff == reg:
        struct.pack_into('<Q', b, cmd + 8 * k, (e & ~(0xffffffff << 16)) | (val << 16))
        break
else:
    sys.exit(f'task {task} writes no 0x{reg:04x}')
open(dst, 'wb').write(b)
