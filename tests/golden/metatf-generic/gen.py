# Writes a Meta-TF file under samples.dtd (little-endian, 32-bit, 2-byte
# tags), or one of its broken variants: python3 gen.py MODE OUT
# MODE: good | url | cut | short | tag | offset | count | dtd
import struct, sys
mode, out = sys.argv[1], sys.argv[2]
dtd = open("samples.dtd", "rb").read()
if mode == "dtd":
    dtd = dtd.replace(b"repeat sizes n", b"repeat sizes m")
types = b"malloc\0free\0"
units = b"bytes\0\0\0pages\0\0\0"
def rec(tag, body): return struct.pack("<H", tag) + body
def sample(dt, dw, typ, unit, sizes, x, y, where):
    return rec(1, struct.pack("<" + ("i" if dw == 4 else "h"), dt) + struct.pack("<HB", typ, unit) +
               bytes([len(sizes)]) + b"".join(struct.pack("<I", s) for s in sizes) +
               struct.pack("<hhI", x, y, where))
recs = [
    sample(10, 4, 0, 0, [16, 32, 48], -1, 2, 0x1000),       # time 1010
    sample(5, 4, 7 if mode != "offset" else 999, 1, [], 3, -4, 0x2000),
    rec(3, bytes([2, 0, 3]) + struct.pack("<Q", 5000)),  # time: delta from 5000
    rec(3, bytes([1, 0, 2])),                                # time: 2 bytes wide
    sample(-3, 2, 0, 1, [8], 0, 0, 0xfffffff0),             # time 4997
    rec(4, bytes([0]) + struct.pack("<I", 5) + b"calloc\0"[:5] + b""),
    rec(2, bytes([11]) + b"hello \"all\""),
    rec(5, struct.pack("<h", 1) + bytes([1, 0xff, 2, 5])),
]
recs[5] = rec(4, bytes([0]) + struct.pack("<I", 7) + b"calloc\0")
recs.insert(6, sample(2, 2, 12, 0, [1, 2], 5, 6, 0x10))     # type "calloc", appended at 12
if mode == "tag":
    recs.append(rec(9, b""))
body = b"".join(recs)
if mode == "cut":
    body = body[:-3]
nrec = len(recs)
if mode == "count":
    nrec += 1
form, d = (2, b"samples.dtd") if mode == "url" else (1, dtd)
head = b"\x7fMTF" + bytes([1, 1, 1, form]) + struct.pack("<IIQ", 3, len(d), nrec) + d
d0 = len(head) + 3 * 24
sects = [(d0, len(types), 2), (d0 + len(types), len(units), 2),
         (d0 + len(types) + len(units), len(body), len(recs))]
head += b"".join(struct.pack("<QQQ", *s) for s in sects)
data = head + types + units + body
open(out, "wb").write(data[:-3] if mode == "short" else data)
