"""The memory plan is read from every program a block compiles, through the one function every compile goes
through, which the block puts back however it ends; its total counts temporaries, which XLA's CPU peak leaves out."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from jax._src import compiler

from jaxpitfalls.harness.program_memory import largest, planned_memory


def _executable(temporaries: int):
    stats = SimpleNamespace(peak_memory_in_bytes=12, argument_size_in_bytes=8, output_size_in_bytes=4,
                            alias_size_in_bytes=4 if temporaries == 1 else 0, temp_size_in_bytes=temporaries)
    return SimpleNamespace(get_compiled_memory_stats=lambda: stats, local_devices=lambda: ["cpu:0"])


def test_each_compile_in_the_block_is_planned_and_the_function_put_back_even_on_an_error(monkeypatch):
    temporaries = iter([2, 1, 30])
    monkeypatch.setattr(compiler, "compile_or_get_cached", lambda *a, **k: _executable(next(temporaries)))
    own = compiler.compile_or_get_cached
    with pytest.raises(RuntimeError), planned_memory() as plans:
        for _ in range(3):
            compiler.compile_or_get_cached()
        raise RuntimeError("a variant that raises")
    assert compiler.compile_or_get_cached is own
    assert [p["total_bytes"] for p in plans] == [14, 9, 42]  # a donated output counted once
    assert largest(plans) == plans[2] | {"programs": 3} and largest([]) is None
