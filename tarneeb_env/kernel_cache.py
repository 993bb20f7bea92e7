"""Numba's on-disk cache, kept true for kernels that compile in functions of other modules.

Numba checks a cached kernel against its own file only; kernels that compile in the
``register_jitable`` functions of other modules (the rules, the observation layout, ``rule``'s
card play) would otherwise keep running a rule as it read when the cache was written.
"""
from __future__ import annotations

import os

from numba.core.registry import CPUDispatcher


_SEEN: list = []  # every cached kernel of the modules that called drop_stale_cache


def uncached_kernels() -> tuple[int, int]:
    """How many of the cached kernels of the modules imported so far have nothing on disk yet, and how many there
    are: they compile on first use (seconds each), so a command line can say so before it seems to hang."""
    return sum(not _compiled_on_disk(k) for k in _SEEN), len(_SEEN)


def _compiled_on_disk(kernel) -> bool:
    """Whether numba's index file for ``kernel`` lists a compiled version (a flushed cache leaves it empty)."""
    try:
        return bool(kernel._cache._cache_file._load_index())
    except Exception:  # numba's private cache layout changed: say nothing rather than something wrong
        return True


def drop_stale_cache(namespace: dict, deps: list[str], tag: str) -> None:
    """Drop the cache of the cached kernels in ``namespace`` (a module's ``globals()``) when a file of ``deps``
    has changed since it was written, so that they recompile once; the stamp is ``<tag>.deps`` beside it."""
    kernels = [k for k in namespace.values() if isinstance(k, CPUDispatcher) and hasattr(k._cache, "cache_path")]
    _SEEN.extend(kernels)
    if not kernels:
        return
    stamp = repr([(os.path.basename(f), os.stat(f).st_mtime_ns, os.stat(f).st_size) for f in deps])
    path = os.path.join(kernels[0]._cache.cache_path, f"{tag}.deps")
    try:
        with open(path, encoding="utf-8") as f:
            if f.read() == stamp:
                return
    except OSError:
        pass
    for k in kernels:
        k._cache.flush()
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(stamp)
    except OSError:
        pass  # a read-only install: numba itself then caches elsewhere or not at all
