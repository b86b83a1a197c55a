"""An atomic fetch-and-add on an int64 counter, for the lanes of a parallel kernel that share out blocks.

numba has no atomic operations on the CPU; an intrinsic emits LLVM's
``atomicrmw add`` where a kernel calls :func:`fetch_add`. Monotonic ordering
is enough: the counter only hands out distinct block numbers, and what the
lanes write is read after the parallel region ends, which orders it. From
Python (and under ``NUMBA_DISABLE_JIT``, where ``prange`` is ``range``) it is
a plain read and add.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload

__all__ = ["fetch_add"]


def fetch_add(counter, value):
    """``counter[0] += value``, one atomic step in a kernel; returns ``counter[0]`` from before (int64).

    ``counter``: a one-dimensional int64 array; ``value``: int64.
    """
    before = counter[0]
    counter[0] += value
    return before


@overload(fetch_add)
def _fetch_add_in_kernels(counter, value):
    return lambda counter, value: _atomic_add(counter, value)


@intrinsic
def _atomic_add(typingctx, counter, value):
    """The kernels' :func:`fetch_add`: LLVM's ``atomicrmw add`` on ``counter[0]``."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64 and counter.ndim == 1):
        return None
    sig = types.int64(counter, types.int64)

    def codegen(context, builder, signature, args):
        array, amount = args
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, array)
        first = cgutils.get_item_pointer(context, builder, array_type, view, [ir.Constant(ir.IntType(64), 0)])
        return builder.atomic_rmw("add", first, amount, "monotonic")

    return sig, codegen
