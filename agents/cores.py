"""The cores this process may run on: the DDS solver's threads, the evaluator's workers and the trainer's
backend choice are all sized by it."""
from __future__ import annotations

import os


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity), not the machine's count."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity API (macOS, Windows)
        return os.cpu_count() or 1
