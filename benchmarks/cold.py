"""Cold starts for the benchmarks: code run in a fresh interpreter with an empty numba cache."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile


def cold_run(code: str, *args: str) -> list[float]:
    """Run ``code`` (``python -c``, with ``args``) on an empty numba cache; the numbers its last line prints."""
    with tempfile.TemporaryDirectory() as cache:
        done = subprocess.run([sys.executable, "-c", code, *args], env={**os.environ, "NUMBA_CACHE_DIR": cache},
                              check=True, capture_output=True, text=True)
    return [float(x) for x in done.stdout.strip().splitlines()[-1].split()]
