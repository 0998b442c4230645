"""A cache prefetch hint for Numba kernels: ``prefetch(array, i)`` asks the CPU to start
loading the cache line of ``array[i]`` and returns at once (LLVM's ``llvm.prefetch``: a read,
high locality). It never faults and changes no value, so it is safe on any index in range; with
the JIT disabled it does nothing.

A depth-first search reads a pattern database entry per child, each likely a cache miss in a
table of hundreds of megabytes; the search's next step depends on the value, so the misses come
one after another. Computing the children's table indices first and prefetching them lets their
misses overlap.
"""

from __future__ import annotations

from typing import Any

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, overload


@intrinsic
def _prefetch(typingctx: Any, arr: Any, idx: Any) -> Any:
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None
    sig = types.void(arr, idx)

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        # read (0), high temporal locality (3), data cache (1)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


def prefetch(arr: Any, i: Any) -> None:
    """Start loading the cache line of ``arr[i]`` (a hint; nothing without the JIT)."""


@overload(prefetch, inline="always")
def _prefetch_impl(arr: Any, i: Any) -> Any:
    """Compiled code calls the intrinsic; Python (``NUMBA_DISABLE_JIT``) the no-op above."""
    def impl(arr: Any, i: Any) -> None:
        _prefetch(arr, i)  # type: ignore[call-arg]  # typing context: the intrinsic's first argument
    return impl
