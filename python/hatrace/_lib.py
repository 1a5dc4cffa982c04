"""libhatf and libhatanalyze through ctypes: finding the libraries and the
hatrace command, the structures and functions the package uses
(include/hatf*.h, analyze/hatan_api.h)."""

import ctypes
import os
import shutil
from pathlib import Path

# The oldest libhatf with hatf_source_read_columns (include/hatf_source.h).
MIN_VERSION = 200  # 0.2.0
# The libhatanalyze API the package calls (HATAN_API_VERSION, analyze/hatan_api.h).
MIN_ANALYZE_API = 2

_HERE = Path(__file__).resolve().parent
# In a checkout, python/hatrace/ sits two levels below the repository.
_REPO_BUILD = _HERE.parent.parent / "build"


def _installed(name):
    """A path make install wrote into _installed.py (LIBDIR, BINDIR), or None."""
    try:
        from . import _installed as inst  # written by make install
    except ImportError:
        return None
    return getattr(inst, name, None)


def _candidates(env, name, soname):
    """Where a library is looked for, in order: $env alone when it is set;
    else the build folder of the checkout the package lies in, the LIBDIR
    make install used, and the dynamic loader's own search."""
    if os.environ.get(env):
        return [os.environ[env]]
    out = [str(_REPO_BUILD / name)]
    libdir = _installed("LIBDIR")
    if libdir:
        out.append(os.path.join(libdir, soname))
    out.append(soname)
    return out


def library_candidates():
    """Where libhatf is looked for ($HATRACE_LIBHATF, build/, LIBDIR, the loader)."""
    return _candidates("HATRACE_LIBHATF", "libhatf.so", "libhatf.so.0")


def analyze_candidates():
    """Where libhatanalyze (the figures of the hatrace commands) is looked
    for: as libhatf, with $HATRACE_LIBHATANALYZE."""
    return _candidates("HATRACE_LIBHATANALYZE", "libhatanalyze.so", "libhatanalyze.so.0")


def hatrace_command():
    """The hatrace command: $HATRACE, the checkout's build/hatrace, the
    BINDIR make install used, or the one on PATH."""
    env = os.environ.get("HATRACE")
    if env:
        return env
    for p in (_REPO_BUILD / "hatrace",
              Path(_installed("BINDIR") or "/nonexistent") / "hatrace"):
        if p.is_file() and os.access(p, os.X_OK):
            return str(p)
    found = shutil.which("hatrace")
    if not found:
        raise FileNotFoundError("hatrace command not found (set HATRACE, or put it on PATH)")
    return found


class Err(ctypes.Structure):
    _fields_ = [("code", ctypes.c_int), ("sys_errno", ctypes.c_int),
                ("offset", ctypes.c_uint64), ("record", ctypes.c_uint64),
                ("msg", ctypes.c_char * 192)]


class Info(ctypes.Structure):
    _fields_ = [("version_major", ctypes.c_uint32), ("version_minor", ctypes.c_uint32),
                ("address_bits", ctypes.c_uint8), ("big_endian", ctypes.c_uint8),
                ("pid", ctypes.c_uint32), ("ppid", ctypes.c_uint32),
                ("start_realtime_ns", ctypes.c_uint64),
                ("time_unit_ns_num", ctypes.c_uint64), ("time_unit_ns_den", ctypes.c_uint64),
                ("clock", ctypes.c_char * 32), ("cmdline", ctypes.c_char * 4096),
                ("flags", ctypes.c_uint32), ("parent_trace", ctypes.c_char * 4096)]


class Counters(ctypes.Structure):
    _fields_ = [("events", ctypes.c_uint64), ("dropped", ctypes.c_uint64),
                ("ring_waits", ctypes.c_uint64)]


class Figures(ctypes.Structure):
    """hatan_figures: the key figures of hatrace stats."""
    NAMES = ("records", "allocs", "frees", "free_null", "reallocs", "total_bytes", "max_live_objects",
             "max_live_bytes", "live_objects_at_end", "live_bytes_at_end", "temporary", "first_time", "last_time")
    _fields_ = [(n, ctypes.c_uint64) for n in NAMES]


class Frame(ctypes.Structure):
    """hatan_frame: one frame of a stored call stack."""
    _fields_ = [("stack", ctypes.c_uint64), ("depth", ctypes.c_uint64), ("address", ctypes.c_uint64),
                ("module", ctypes.c_char_p), ("module_offset", ctypes.c_uint64),
                ("function", ctypes.c_char_p), ("function_offset", ctypes.c_uint64),
                ("file", ctypes.c_char_p), ("line", ctypes.c_uint64)]


_P64 = ctypes.c_void_p


class Columns(ctypes.Structure):
    """hatf_columns: one stride, then the columns' addresses (NULL: not wanted)."""
    U64 = ("time", "time_ns", "thread", "heap", "size", "address", "old_address", "stack")
    U8 = ("op", "function", "failed")
    _fields_ = [("stride", ctypes.c_size_t)] + [(n, _P64) for n in U64 + U8]


INFO_FORKED = 1
INFO_DROP_MODE = 2
COLUMNS_FN_OTHER = 255
COLUMNS_FN_MMAP = 250  # 250..254: a comment noting a mapping (mmap, munmap, mremap, brk, brk-shrink)
E_NOMEM = -1  # HATF_E_NOMEM
FORMATS = {"hatrace": 1, "hatf1.0": 2, "text": 3, "metatf": 4}


def _declare(lib):
    vp, sz, u64, cp = ctypes.c_void_p, ctypes.c_size_t, ctypes.c_uint64, ctypes.c_char_p
    pp_char = ctypes.POINTER(ctypes.POINTER(ctypes.c_char_p))
    sig = {
        "hatf_version": (cp, []),
        "hatf_version_number": (ctypes.c_uint, []),
        "hatf_strerror": (cp, [ctypes.c_int]),
        "hatf_op_name": (cp, [ctypes.c_uint]),
        "hatf_func_name": (cp, [ctypes.c_uint]),
        "hatf_columns_function_name": (cp, [ctypes.c_uint]),
        "hatf_source_open": (vp, [cp, ctypes.c_int, ctypes.POINTER(Err)]),
        "hatf_source_close": (None, [vp]),
        "hatf_source_format": (ctypes.c_int, [vp]),
        "hatf_source_container": (vp, [vp]),
        "hatf_source_info": (ctypes.POINTER(Info), [vp]),
        "hatf_source_read_on": (None, [vp, ctypes.c_int]),
        "hatf_source_jobs": (ctypes.c_int, [vp, ctypes.c_uint]),
        "hatf_source_skips": (sz, [vp, pp_char]),
        "hatf_source_error": (ctypes.POINTER(Err), [vp]),
        "hatf_source_offset": (u64, [vp]),
        "hatf_source_read_columns": (ctypes.c_int, [vp, ctypes.POINTER(Columns), sz]),
        "hatf_reader_complete": (ctypes.c_int, [vp]),
        "hatf_reader_damage": (sz, [vp, pp_char]),
        "hatf_reader_threads": (sz, [vp, ctypes.POINTER(ctypes.POINTER(u64))]),
        "hatf_reader_thread_name": (cp, [vp, u64]),
        "hatf_reader_counters": (ctypes.POINTER(Counters), [vp]),
        "hatf_reader_event_count": (u64, [vp]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


def _declare_analyze(lib):
    vp, cp = ctypes.c_void_p, ctypes.c_char_p
    sig = {
        "hatan_api_version": (ctypes.c_uint, []),
        "hatan_stats_file": (ctypes.c_int, [cp, ctypes.c_int, ctypes.c_int, ctypes.c_uint, ctypes.POINTER(Figures),
                                            ctypes.POINTER(Err)]),
        "hatan_stats_columns": (ctypes.c_int, [ctypes.POINTER(Columns), ctypes.c_size_t, ctypes.POINTER(Figures)]),
        "hatan_frames_open": (vp, [cp, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Err)]),
        "hatan_frames_next": (ctypes.c_int, [vp, ctypes.POINTER(Frame)]),
        "hatan_frames_close": (None, [vp]),
        "hatan_stats_json": (ctypes.c_int, [cp, ctypes.c_int, ctypes.c_int, ctypes.c_uint,
                                            ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(Err)]),
        "hatan_free": (None, [vp]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


def _load(candidates, usable, declare, what, hint):
    """The first of candidates that loads and is usable(lib) (else the
    reason, a string), declared; OSError naming what was tried when none."""
    tried = []
    for cand in candidates:
        if os.sep in cand and not os.path.exists(cand):
            tried.append(cand + " (missing)")
            continue
        try:
            found = ctypes.CDLL(cand)
        except OSError as e:
            tried.append("%s (%s)" % (cand, e))
            continue
        why = usable(found)
        if why:
            tried.append("%s (%s)" % (cand, why))
            continue
        declare(found)
        return found
    raise OSError("%s not found: tried %s (build it with make, or set %s)" % (what, "; ".join(tried), hint))


_lib = None
_analyze = None


def lib():
    """The loaded libhatf (loaded on first use). Raises OSError when none of
    library_candidates() loads or the one found is older than MIN_VERSION."""
    global _lib
    if _lib is None:
        old = "older than 0.2.0"
        _lib = _load(library_candidates(), lambda f: None if hasattr(f, "hatf_source_read_columns") and
                     f.hatf_version_number() >= MIN_VERSION else old, _declare, "libhatf", "HATRACE_LIBHATF")
    return _lib


def analyze():
    """The loaded libhatanalyze (loaded on first use, after libhatf, whose
    soname it needs). Raises OSError when none of analyze_candidates() loads
    or the one found has an older API than MIN_ANALYZE_API."""
    global _analyze
    if _analyze is None:
        lib()
        _analyze = _load(analyze_candidates(), lambda f: None if hasattr(f, "hatan_api_version") and
                         f.hatan_api_version() >= MIN_ANALYZE_API else "no hatan API %d" % MIN_ANALYZE_API,
                         _declare_analyze, "libhatanalyze", "HATRACE_LIBHATANALYZE")
    return _analyze


def lines(getter, handle):
    """The strings of a (handle, const char *const **) -> count function."""
    arr = ctypes.POINTER(ctypes.c_char_p)()
    n = getter(handle, ctypes.byref(arr))
    return [arr[i].decode("utf-8", "replace") for i in range(n)]
