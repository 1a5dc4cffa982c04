"""A trace file: its header, threads and damage, and its events as a NumPy
structured array or a pandas DataFrame, read by libhatf in batches
(hatf_source_read_columns): no event is decoded in Python."""

import ctypes
import json
import mmap
import os
import subprocess
import warnings

import numpy as np

from . import _lib
from ._lib import Columns, Err

# The columns, in the order of `hatrace convert --to csv` (docs/tools.md).
COLUMNS = ("time", "time_ns", "thread", "heap", "op", "size", "address", "old_address",
           "function", "stack", "failed")

# The structured array's row: op and function as the library's codes
# (op_names(), function_names() name them), failed as 0 or 1.
EVENT_DTYPE = np.dtype([(c, np.uint8 if c in Columns.U8 else np.uint64) for c in COLUMNS], align=True)

# Rows asked for in one call: large, so that a call costs nothing next to
# its rows, and bounded, so that growing the arrays is seldom needed.
BATCH = 1 << 22


class HatraceError(Exception):
    """A trace that cannot be opened or read: the library's message, as the
    hatrace commands print it ("PATH: offset N: ..."), with code, offset and
    record (None when not known) as attributes."""

    def __init__(self, path, err):
        msg = err.msg.decode("utf-8", "replace") or _lib.lib().hatf_strerror(err.code).decode()
        super().__init__("%s: %s" % (path, msg))
        self.path, self.code, self.offset = path, err.code, err.offset
        self.record = None if err.record == 2 ** 64 - 1 else err.record


class DamageWarning(UserWarning):
    """Events read from a damaged or cut trace: the frame or array holds what
    could be read, and the warning names what was lost (Trace.damage lists
    all of it), as the hatrace commands say it before exiting with 3."""


def op_names():
    """The ops by code: "alloc", "free", "realloc-inplace", ... (hatf_op_name)."""
    lib = _lib.lib()
    return [lib.hatf_op_name(i).decode() for i in range(11)]


def function_names():
    """The function column's categories: "" (an op that is no call: heap,
    thread, comment), "malloc", "calloc", ... (hatf_func_name, codes from 1),
    then "mmap", "munmap", "mremap", "brk", "brk-shrink" (a comment noting one
    of the program's own mappings, codes 250 to 254) and "(other)" for a code
    the library does not know (code 255); function_codes() maps the arrays'
    codes to them. A record without a func attribute is the plain call
    (malloc, free, realloc), as stats counts functions."""
    lib = _lib.lib()
    out = [""]
    while lib.hatf_func_name(len(out)):
        out.append(lib.hatf_func_name(len(out)).decode())
    return out + [lib.hatf_columns_function_name(c).decode() for c in range(_lib.COLUMNS_FN_MMAP, 256)]


def function_codes():
    """For each code of the arrays' function column (0 to 255), its place in
    function_names()."""
    names = function_names()
    k = len(names) - (256 - _lib.COLUMNS_FN_MMAP)  # the library's functions, "" included
    lut = np.full(256, len(names) - 1, dtype=np.int8)
    lut[:k] = np.arange(k)
    lut[_lib.COLUMNS_FN_MMAP:] = np.arange(k, len(names))
    return lut


def _sniff(path):
    """hatrace (the container's magic), metatf ("\\177MTF") or text ("#hatrace-text "); None else."""
    with open(path, "rb") as f:
        head = f.read(14)
    if head[:8] == b"HATRACE\0":
        return "hatrace"
    if head[:4] == b"\177MTF":
        return "metatf"
    if head == b"#hatrace-text ":
        return "text"
    return None


def _zeros(shape, dtype, populate=False):
    """A zeroed array; a large one in an anonymous mapping of its own, in
    ordinary pages: NumPy advises huge pages for large arrays, and where the
    kernel compacts memory to make them (transparent_hugepage/defrag
    "madvise") a first touch can cost several times the reading. populate:
    the pages are made at once (all will be written), cheaper than a fault
    each."""
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape)) * dtype.itemsize
    if nbytes < 1 << 22:
        return np.zeros(shape, dtype=dtype)
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | (getattr(mmap, "MAP_POPULATE", 0) if populate else 0)
    return np.frombuffer(mmap.mmap(-1, nbytes, flags=flags), dtype=dtype).reshape(shape)


class _Struct:
    """Rows in one structured array (events())."""

    def __init__(self, cap, exact=False):
        self.a = _zeros(cap, EVENT_DTYPE, exact)

    def cap(self):
        return len(self.a)

    def columns(self, at):
        base = self.a.ctypes.data + at * EVENT_DTYPE.itemsize
        c = Columns(stride=EVENT_DTYPE.itemsize)
        for name in COLUMNS:
            setattr(c, name, base + EVENT_DTYPE.fields[name][1])
        return c

    def resize(self, cap, n):
        a = _zeros(cap, EVENT_DTYPE)
        a[:n] = self.a[:n]
        self.a = a


class _Packed:
    """Rows as packed columns (to_pandas()): the 64-bit ones in one 2-D array
    whose rows are the columns, so that pandas takes it as one block without
    a copy, and the 8-bit ones in another."""

    def __init__(self, cap, exact=False):
        self.u64 = _zeros((len(Columns.U64), cap), np.uint64, exact)
        self.u8 = _zeros((len(Columns.U8), cap), np.uint8, exact)

    def cap(self):
        return self.u64.shape[1]

    def columns(self, at):
        c = Columns(stride=0)
        for i, name in enumerate(Columns.U64):
            setattr(c, name, self.u64[i].ctypes.data + 8 * at)
        for i, name in enumerate(Columns.U8):
            setattr(c, name, self.u8[i].ctypes.data + at)
        return c

    def resize(self, cap, n):
        u64 = _zeros((len(Columns.U64), cap), np.uint64)
        u8 = _zeros((len(Columns.U8), cap), np.uint8)
        u64[:, :n] = self.u64[:, :n]
        u8[:, :n] = self.u8[:, :n]
        self.u64, self.u8 = u64, u8


class Trace:
    """A trace file of any of the four formats.

    format: "hatrace" (the container), "hatf1.0", "text" or "metatf"; None
    (default) takes a container or a Meta-TF file by its magic and a text trace
    by its first line, and
    asks for the format otherwise (a raw HATF 1.0 stream has no magic).
    strict: False (default) reads on past a container's damaged chunk groups,
    as the hatrace commands do, and lists them in damage; True raises at the
    first one, as the commands' --strict.
    jobs: threads that read a container (its chunk groups decoded ahead
    while the calling thread merges them, as the commands' -j): 0 (default)
    one per core, 1 the calling thread alone; the events are the same.

    The header is read at once: format, pid, ppid, cmdline, clock,
    time_unit_ns ((num, den): a time unit is num/den ns), start_realtime_ns,
    address_bits, forked, has_header (False for another writer's stream,
    whose unit is then taken as 1 ns); for a container also complete (it
    ended with its index), counters (events, dropped, ring_waits) and
    damage (one line per damaged part, as stats prints them; the parts
    passed over while reading events are added as they are met).
    """

    def __init__(self, path, format=None, strict=False, jobs=0):
        self.path = os.fspath(path)
        self.format = format or _sniff(self.path)
        if self.format is None:
            raise ValueError("%s: not a container or a text trace: say format='hatf1.0' for a raw "
                             "HATF 1.0 stream" % self.path)
        if self.format not in _lib.FORMATS:
            raise ValueError("unknown format %r (hatrace, hatf1.0, text, metatf)" % (format,))
        self.strict = strict
        if not isinstance(jobs, int) or jobs < 0:
            raise ValueError("jobs: %r is not a number of threads (0: one per core)" % (jobs,))
        self.jobs = jobs
        lib = _lib.lib()
        h = self._open()
        try:
            info = lib.hatf_source_info(h)
            self.has_header = bool(info)
            i = info.contents if info else _lib.Info()
            num, den = (i.time_unit_ns_num, i.time_unit_ns_den) if info else (1, 1)
            self.time_unit_ns = (num, den) if num and den else (1, 1)
            self.pid, self.ppid = i.pid, i.ppid
            self.cmdline = i.cmdline.decode("utf-8", "replace")
            self.clock = i.clock.decode("utf-8", "replace")
            self.start_realtime_ns = i.start_realtime_ns
            self.address_bits = i.address_bits
            self.forked = bool(i.flags & _lib.INFO_FORKED)
            r = lib.hatf_source_container(h)
            self.complete = bool(lib.hatf_reader_complete(r)) if r else None
            self.damage = _lib.lines(lib.hatf_reader_damage, r) if r else []
            self._event_count = lib.hatf_reader_event_count(r) if r else None
            if r:
                c = lib.hatf_reader_counters(r).contents
                self.counters = {"events": c.events, "dropped": c.dropped, "ring_waits": c.ring_waits}
                ids = ctypes.POINTER(ctypes.c_uint64)()
                n = lib.hatf_reader_threads(r, ctypes.byref(ids))
                self._threads = [(ids[k], _str(lib.hatf_reader_thread_name(r, ids[k]))) for k in range(n)]
            else:
                self.counters = None
                self._threads = None
        finally:
            lib.hatf_source_close(h)

    def __repr__(self):
        return "<hatrace.Trace %r (%s)>" % (self.path, self.format)

    def _open(self):
        lib = _lib.lib()
        err = Err()
        h = lib.hatf_source_open(os.fsencode(self.path), _lib.FORMATS[self.format], ctypes.byref(err))
        if not h:
            raise HatraceError(self.path, err)
        lib.hatf_source_read_on(h, 0 if self.strict else 1)
        lib.hatf_source_jobs(h, self.jobs)
        return h

    def _guess_rows(self):
        """Rows to start with, and whether to make their pages at once (the
        count is exact and plausible)."""
        size = os.path.getsize(self.path)
        if self._event_count is not None:
            # exact for an intact file (+1 to see the end): no growing; but
            # never more than 64 events a byte (the best coding takes 0.02
            # bytes an event): a file that claims more grows as it is read.
            # Pages made at once only up to 8 events a byte (traces take 1
            # to 6): a file's claim alone (a group may say 2^20 events and
            # hold none) makes no resident memory
            most = 64 * size + (1 << 20)
            if self._event_count >= most:
                return most, False
            return self._event_count + 1, self._event_count < 8 * size + (1 << 16)
        # a text line takes 15 bytes or more; a HATF 1.0 record 1 or more
        return max(1024, size // 15 if self.format == "text" else size) + 1, False

    def _nomem(self, h=None):
        """The package's error for memory the rows could not get (NumPy's
        MemoryError, or the OSError of a mapping refused), with the file
        and the offset read up to."""
        e = Err()
        e.code, e.record = _lib.E_NOMEM, 2 ** 64 - 1
        e.offset = _lib.lib().hatf_source_offset(h) if h else 0
        e.msg = ("offset %d: out of memory for the events read so far" % e.offset).encode()
        return HatraceError(self.path, e)

    def _rows(self, kind):
        rows, exact = self._guess_rows()
        try:
            return kind(rows, exact)
        except (MemoryError, OSError):
            raise self._nomem() from None

    def _read(self, rows):
        """Every event into rows (_Struct or _Packed). @return the count."""
        lib = _lib.lib()
        h = self._open()
        try:
            n = 0
            while True:
                if n == rows.cap():
                    try:
                        rows.resize(2 * rows.cap(), n)
                    except (MemoryError, OSError):
                        raise self._nomem(h) from None
                c = rows.columns(n)
                got = lib.hatf_source_read_columns(h, ctypes.byref(c), min(rows.cap() - n, BATCH))
                if got == 0:
                    break
                if got < 0:
                    raise HatraceError(self.path, lib.hatf_source_error(h).contents)
                n += got
            # what the reading met: the reader's lines (those of the groups
            # it could not decode among them) and the groups passed over
            r = lib.hatf_source_container(h)
            seen = set(self.damage)
            for line in (_lib.lines(lib.hatf_reader_damage, r) if r else []) + _lib.lines(lib.hatf_source_skips, h):
                if line not in seen:
                    seen.add(line)
                    self.damage.append(line)
        finally:
            lib.hatf_source_close(h)
        if rows.cap() - n > max(1 << 20, n // 4):  # give back what the guess took too much
            rows.resize(n, n)
        return n

    def _warn_damage(self):
        if not self.damage and self.complete is not False:
            return
        lines = self.damage or ["the trace was not closed (no index)"]
        more = " (and %d more: Trace.damage)" % (len(lines) - 1) if len(lines) > 1 else ""
        warnings.warn("%s: the trace is damaged or cut: the events cover what could be read: %s%s"
                      % (self.path, lines[0], more), DamageWarning, stacklevel=3)

    def events(self, thread=None):
        """Every event, in global time order (the order of hatrace dump), as a
        NumPy structured array of EVENT_DTYPE; thread: only that thread's
        events (in the same order). Columns as convert --to csv's, with op
        and function as codes (op_names(), function_names())."""
        rows = self._rows(_Struct)
        a = rows.a[:self._read(rows)]
        self._warn_damage()
        return a if thread is None else a[a["thread"] == thread]

    def to_pandas(self, thread=None):
        """Every event, in global time order, as a pandas DataFrame with the
        columns of convert --to csv: op and function categorical (function ""
        for an op that is no call), failed bool, the others
        uint64 (address, old_address and stack 0 when none); thread: only
        that thread's events (the index then keeps their global row
        numbers)."""
        rows = self._rows(_Packed)
        df = frame(rows.u64, rows.u8, self._read(rows))
        self._warn_damage()
        return df if thread is None else df[df["thread"].values == thread]

    def stacks(self, lines=True):
        """The call stacks' frames as a pandas DataFrame, one row per frame,
        innermost first (depth 0), in stack id order: stack, depth, address,
        module (the file name of the module holding the frame, "" when none),
        module_offset (address in that file: address minus its load bias),
        function (the name the trace stored, as the program's symbol table has
        it, C++ names mangled; "" when unnamed), function_offset, and with
        lines, file and line: the columns of the frames table `convert --to
        csv` writes. The stack column is the events' stack id. Empty for a
        trace without stacks.

        The frames are named by libhatanalyze (hatan_frames_*: the functions
        that name them for stats --sites). A trace holds no source lines: they
        come from the modules' debug information on the machine that reads
        them, found by build id (lines=False skips the look). file is "" and
        line 0 where none is found. The trace's events are not read."""
        import pandas as pd
        an = _lib.analyze()
        err = Err()
        h = an.hatan_frames_open(os.fsencode(self.path), _lib.FORMATS[self.format], 1 if lines else 0,
                                 ctypes.byref(err))
        if not h:
            raise HatraceError(self.path, err)
        rows = []
        f = _lib.Frame()
        try:
            while an.hatan_frames_next(h, ctypes.byref(f)):
                rows.append((f.stack, f.depth, f.address, _str(f.module) or "", f.module_offset,
                             _str(f.function) or "", f.function_offset, _str(f.file) or "", f.line))
        finally:
            an.hatan_frames_close(h)
        columns = STACK_COLUMNS + ("file", "line")
        df = pd.DataFrame(rows, columns=columns)
        for c in columns:
            if c not in ("module", "function", "file"):
                df[c] = df[c].astype(np.uint64)
        return df if lines else df[list(STACK_COLUMNS)]

    @property
    def threads(self):
        """[(id, name or None)]: a container's threads with a records stream,
        in order of first appearance; for the other formats, the threads of
        the events (read for this), in order of id."""
        if self._threads is None:
            rows = self._rows(_Packed)
            n = self._read(rows)
            ops = rows.u8[0, :n]
            ids = np.unique(rows.u64[Columns.U64.index("thread"), :n][ops != 10])  # not comments
            self._threads = [(int(t), None) for t in ids]
        return list(self._threads)

    def stats(self, *args):
        """What `hatrace stats --json` prints for this trace, parsed: without
        args, every figure computed by libhatanalyze (hatan_stats_json: the
        code and the JSON text of the command's own, a damaged trace read as
        far as it goes, as the command does without --strict); with args
        (passed before the file, e.g. "--sites"), by the command itself, whose
        exit 3 (a damaged trace, read as far as it goes) is not an error."""
        if not args:
            an = _lib.analyze()
            err = Err()
            text = ctypes.c_char_p()
            if an.hatan_stats_json(os.fsencode(self.path), _lib.FORMATS[self.format], 1, 0, ctypes.byref(text),
                                   ctypes.byref(err)) < 0:
                raise HatraceError(self.path, err)
            try:
                return json.loads(text.value.decode("utf-8", "surrogateescape"))
            finally:
                an.hatan_free(text)
        cmd = [_lib.hatrace_command(), "stats", "--json", "--from", self.format] + list(args) + [self.path]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if p.returncode not in (0, 3):
            raise HatraceError(self.path, _err_of(p.stderr.strip() or "hatrace stats failed"))
        return json.loads(p.stdout)


# Trace.stacks()' columns.
STACK_COLUMNS = ("stack", "depth", "address", "module", "module_offset", "function", "function_offset")


def _str(b):
    return b.decode("utf-8", "replace") if b else None


def _err_of(text):
    e = Err()
    e.msg = text.encode()[:191]
    return e


def frame(u64, u8, n):
    """The DataFrame of n rows of _Packed's arrays (no copy of the 64-bit
    columns: they become one pandas block)."""
    import pandas as pd
    df = pd.DataFrame(u64[:, :n].T, columns=list(Columns.U64), copy=False)
    ops = pd.Categorical.from_codes(u8[0, :n].view(np.int8), categories=op_names())
    fns = pd.Categorical.from_codes(function_codes()[u8[1, :n]], categories=function_names())
    df.insert(COLUMNS.index("op"), "op", ops)
    df.insert(COLUMNS.index("function"), "function", fns)
    df.insert(COLUMNS.index("failed"), "failed", u8[2, :n].view(np.bool_))
    return df


def empty_frame():
    """A DataFrame of no rows with the columns and types of to_pandas()."""
    p = _Packed(0)
    return frame(p.u64, p.u8, 0)
