"""hatf_craft.py — build hostile containers byte by byte for the reader tests
(tests/integration/reader_bounds.sh). Not a test itself.

A container (docs/format-container.md) is parsed into its header bytes and its
chunks (header fields and stored payload), changed, and written back with
fresh checksums: XXH3-64 from the system's libxxhash through ctypes (libhatf
links the same library), payloads always stored (codec 0), so no zstd is needed.
"""
import ctypes
import ctypes.util
import struct

_names = [ctypes.util.find_library("xxhash"), "libxxhash.so.0", "libxxhash.so"]
_xx = None
for _n in _names:
    if not _n:
        continue
    try:
        _xx = ctypes.CDLL(_n)
        break
    except OSError:
        pass
if _xx is None:
    raise SystemExit("hatf_craft: libxxhash not found")
_xx.XXH3_64bits.restype = ctypes.c_uint64
_xx.XXH3_64bits.argtypes = [ctypes.c_char_p, ctypes.c_size_t]

RECORDS, ADDRS, TABLES, INDEX = 1, 2, 3, 4
HDR = 64
_CK = struct.Struct("<4sBBHQIIIIQQQ")  # bytes 0..55 of a chunk header


def xxh3(b):
    return _xx.XXH3_64bits(bytes(b), len(b))


class Chunk:
    """kind, codec, coding, thread, seq, events, raw_len, t_first, t_last, payload"""

    def __init__(self, kind, thread=0, seq=0, events=0, payload=b"", coding=0, codec=0,
                 raw_len=None, t_first=0, t_last=0):
        self.kind, self.thread, self.seq, self.events = kind, thread, seq, events
        self.payload, self.coding, self.codec = bytes(payload), coding, codec
        self.raw_len = len(self.payload) if raw_len is None else raw_len
        self.t_first, self.t_last = t_first, t_last
        self.bad_hash = False  # write a payload checksum that does not match

    def header(self):
        h = xxh3(self.payload) ^ (1 if self.bad_hash else 0)
        b = _CK.pack(b"HCHK", self.kind, self.codec, self.coding, self.thread, self.seq, self.events,
                     self.raw_len, len(self.payload), self.t_first, self.t_last, h)
        return b + struct.pack("<II", xxh3(b) & 0xffffffff, 0)

    def copy(self, **kw):
        c = Chunk(self.kind, self.thread, self.seq, self.events, self.payload, self.coding, self.codec,
                  self.raw_len, self.t_first, self.t_last)
        for k, v in kw.items():
            setattr(c, k, v)
        return c


def parse(data):
    """@return (header bytes, [Chunk]) of a container, the index chunk and what follows it left out."""
    hlen = struct.unpack_from("<I", data, 12)[0]
    head, pos, chunks = data[:hlen], hlen, []
    while pos + HDR <= len(data):
        f = _CK.unpack_from(data, pos)
        if f[0] != b"HCHK":
            break
        _, kind, codec, coding, thread, seq, events, raw_len, stored, t0, t1, _h = f
        if kind == INDEX:
            break
        pay = data[pos + HDR:pos + HDR + stored]
        chunks.append(Chunk(kind, thread, seq, events, pay, coding, codec, raw_len, t0, t1))
        pos += HDR + stored
    return bytes(head), chunks


def header(head, flags=None, address_bits=None, unit=None):
    """head with some fields replaced and its checksum made again."""
    h = bytearray(head)
    if flags is not None:
        struct.pack_into("<I", h, 20, flags)
    if address_bits is not None:
        h[16] = address_bits
    if unit is not None:
        struct.pack_into("<QQ", h, 40, unit[0], unit[1])
    struct.pack_into("<Q", h, len(h) - 8, xxh3(h[:-8]))
    return bytes(h)


def index_payload(placed, threads=(), counters=(0, 0, 0)):
    """The index listing placed = [(offset, Chunk)] and threads = [(id, events)]."""
    out = bytearray(struct.pack("<QQQII", *counters, len(threads), len(placed)))
    for t, n in threads:
        out += struct.pack("<QQ", t, n)
    for off, c in placed:
        out += struct.pack("<Q", off) + c.header()
    return bytes(out)


def write(path, head, chunks, index=None):
    """Write head and chunks; index: None (a cut file, no index), True (an
    index listing every chunk) or a function placed -> index payload."""
    out = bytearray(head)
    placed = []
    for c in chunks:
        placed.append((len(out), c))
        out += c.header() + c.payload
    if index is not None:
        pay = index_payload(placed) if index is True else index(placed)
        ioff = len(out)
        out += Chunk(INDEX, payload=pay).header() + pay
        tr = struct.pack("<QQ", ioff, len(out) - ioff)
        out += tr + struct.pack("<II", xxh3(tr) & 0xffffffff, 0) + b"HATF-END"
    with open(path, "wb") as f:
        f.write(out)
    return len(out)


def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f
        v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v:
            return bytes(out)


def metatf(dtd, records=b"", url=False):
    """A 64-bit big-endian Meta-TF file (docs/metatf.md) with one records
    section after its header: dtd is the DTD's text, or with url its URL."""
    d = dtd.encode()
    n = 1 if url else dtd.count("\nsection ")
    head = struct.pack(">4sBBBBIIQ", b"\x7fMTF", 1, 2, 2, 2 if url else 1, n, len(d), (1 << 64) - 1)
    off = len(head) + len(d) + 24 * n
    return head + d + struct.pack(">QQQ", off, len(records), (1 << 64) - 1) * n + bytes(records)


def zstd(b, level=19):
    """b as one zstd frame (the system's libzstd through ctypes)."""
    z = ctypes.CDLL(ctypes.util.find_library("zstd") or "libzstd.so.1")
    z.ZSTD_compressBound.restype = ctypes.c_size_t
    z.ZSTD_compress.restype = ctypes.c_size_t
    z.ZSTD_compress.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_int]
    cap = z.ZSTD_compressBound(ctypes.c_size_t(len(b)))
    out = ctypes.create_string_buffer(cap)
    n = z.ZSTD_compress(out, cap, bytes(b), len(b), level)
    return out.raw[:n]
