"""The memory plan is read from every program a block compiles, through the one function every compile goes
through, which the block puts back however it ends; a plan read as 0 beside its buffers is unknown, not 0."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from jax._src import compiler

from jaxpitfalls.harness.program_memory import largest, planned_memory


def _executable(peak: int, arguments: int = 8):
    stats = SimpleNamespace(peak_memory_in_bytes=peak, argument_size_in_bytes=arguments, output_size_in_bytes=4,
                            alias_size_in_bytes=0, temp_size_in_bytes=2)
    return SimpleNamespace(get_compiled_memory_stats=lambda: stats)


def test_each_compile_in_the_block_is_planned_and_the_function_put_back_even_on_an_error(monkeypatch):
    peaks = iter([12, 0, 30])
    monkeypatch.setattr(compiler, "compile_or_get_cached", lambda *a, **k: _executable(next(peaks)))
    own = compiler.compile_or_get_cached
    with pytest.raises(RuntimeError), planned_memory() as plans:
        for _ in range(3):
            compiler.compile_or_get_cached()
        raise RuntimeError("a variant that raises")
    assert compiler.compile_or_get_cached is own
    assert [p["peak_bytes"] for p in plans] == [12, 30]  # the 0 beside 12 bytes of buffers: no plan kept
    assert largest(plans) == plans[1] | {"programs": 2} and largest([]) is None
