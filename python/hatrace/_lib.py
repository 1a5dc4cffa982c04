"""libhatf through ctypes: finding the library and the hatrace command, the
structures and functions the package uses (include/hatf*.h)."""

import ctypes
import os
import shutil
from pathlib import Path

# The oldest libhatf with hatf_source_read_columns (include/hatf_source.h).
MIN_VERSION = 200  # 0.2.0

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


def library_candidates():
    """Where libhatf is looked for, in order: $HATRACE_LIBHATF alone when it
    is set; else the build folder of the checkout the package lies in, the
    LIBDIR make install used, and the dynamic loader's own search."""
    env = os.environ.get("HATRACE_LIBHATF")
    if env:
        return [env]
    out = [str(_REPO_BUILD / "libhatf.so")]
    libdir = _installed("LIBDIR")
    if libdir:
        out.append(os.path.join(libdir, "libhatf.so.0"))
    out.append("libhatf.so.0")
    return out


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


class Module(ctypes.Structure):
    """hatf_module: one entry of the load map."""
    _fields_ = [("id", ctypes.c_uint64), ("start", ctypes.c_uint64), ("end", ctypes.c_uint64),
                ("bias", ctypes.c_uint64), ("build_id", ctypes.c_uint8 * 32),
                ("build_id_len", ctypes.c_uint32), ("path", ctypes.c_char_p)]


class Symbol(ctypes.Structure):
    """hatf_symbol: the function holding a frame address."""
    _fields_ = [("addr", ctypes.c_uint64), ("module", ctypes.c_uint64), ("offset", ctypes.c_uint64),
                ("name", ctypes.c_char_p)]


class Counters(ctypes.Structure):
    _fields_ = [("events", ctypes.c_uint64), ("dropped", ctypes.c_uint64),
                ("ring_waits", ctypes.c_uint64)]


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
        "hatf_source_tables": (vp, [vp]),
        "hatf_reader_stack_count": (sz, [vp]),
        "hatf_reader_stack_at": (sz, [vp, sz, ctypes.POINTER(u64), ctypes.POINTER(ctypes.POINTER(u64))]),
        "hatf_reader_symbol": (ctypes.POINTER(Symbol), [vp, u64]),
        "hatf_reader_modules": (sz, [vp, ctypes.POINTER(ctypes.POINTER(Module))]),
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


_lib = None


def lib():
    """The loaded libhatf (loaded on first use). Raises OSError when none of
    library_candidates() loads or the one found is older than MIN_VERSION."""
    global _lib
    if _lib is not None:
        return _lib
    tried = []
    for cand in library_candidates():
        if os.sep in cand and not os.path.exists(cand):
            tried.append(cand + " (missing)")
            continue
        try:
            found = ctypes.CDLL(cand)
        except OSError as e:
            tried.append("%s (%s)" % (cand, e))
            continue
        if not hasattr(found, "hatf_source_read_columns") or found.hatf_version_number() < MIN_VERSION:
            tried.append(cand + " (older than 0.2.0)")
            continue
        _declare(found)
        _lib = found
        return found
    raise OSError("libhatf not found: tried " + "; ".join(tried) +
                  " (build it with make, or set HATRACE_LIBHATF)")


def lines(getter, handle):
    """The strings of a (handle, const char *const **) -> count function."""
    arr = ctypes.POINTER(ctypes.c_char_p)()
    n = getter(handle, ctypes.byref(arr))
    return [arr[i].decode("utf-8", "replace") for i in range(n)]
