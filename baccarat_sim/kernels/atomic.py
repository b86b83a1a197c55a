"""An atomic fetch-and-add on an int64 array element, for lanes that take blocks from a shared counter."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["fetch_add"]


@intrinsic
def fetch_add(typingctx, array, value):
    """``array[0] += value`` atomically; returns the old ``array[0]`` (int64)."""
    if not (isinstance(array, types.Array) and array.dtype == types.int64):
        return None
    sig = types.int64(array, types.int64)

    def codegen(context, builder, signature, args):
        ary, val = args
        arr = context.make_array(signature.args[0])(context, builder, ary)
        ptr = cgutils.get_item_pointer(context, builder, signature.args[0], arr, [ir.Constant(ir.IntType(64), 0)])
        return builder.atomic_rmw("add", ptr, val, "monotonic")

    return sig, codegen
