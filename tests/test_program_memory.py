"""The memory plan and the optimized program are read from every program a block compiles, through the one function
every compile goes through, which the block puts back however it ends; the plan's total counts temporaries, which
XLA's CPU peak leaves out; the program's text is alike where XLA built two spellings alike."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from jax._src import compiler

from jaxpitfalls.harness.compiled import compiled_programs, optimized_text
from jaxpitfalls.harness.program_memory import largest


def _executable(temporaries: int):
    stats = SimpleNamespace(peak_memory_in_bytes=12, argument_size_in_bytes=8, output_size_in_bytes=4,
                            alias_size_in_bytes=4 if temporaries == 1 else 0, temp_size_in_bytes=temporaries)
    return SimpleNamespace(get_compiled_memory_stats=lambda: stats, local_devices=lambda: ["cpu:0"], hlo_modules=list)


def test_each_compile_in_the_block_is_planned_and_the_function_put_back_even_on_an_error(monkeypatch):
    temporaries = iter([2, 1, 30])
    monkeypatch.setattr(compiler, "compile_or_get_cached", lambda *a, **k: _executable(next(temporaries)))
    own = compiler.compile_or_get_cached
    with pytest.raises(RuntimeError), compiled_programs() as found:
        for _ in range(3):
            compiler.compile_or_get_cached()
        raise RuntimeError("a variant that raises")
    assert compiler.compile_or_get_cached is own
    plans = [c.plan for c in found]
    assert [p["total_bytes"] for p in plans] == [14, 9, 42]  # a donated output counted once
    assert largest(plans) == plans[2] | {"programs": 3} and largest([]) is None


def test_two_spellings_xla_builds_alike_print_alike_and_another_program_does_not():
    """A benchmark file's einsum against a transpose and `@`: two lowered programs, one executable."""
    import jax
    import jax.numpy as jnp

    def einsum(a, b):
        return jnp.einsum("ki,kj->ij", a, b)

    def transposed(a, b):
        return a.T @ b

    def scaled(a, b):
        return (2 * a).T @ b

    a, b = jnp.ones((16, 8)), jnp.ones((16, 4))
    texts = [optimized_text(jax.jit(f).lower(a, b).compile().runtime_executable())
             for f in (einsum, transposed, scaled)]
    assert jax.jit(einsum).lower(a, b).as_text() != jax.jit(transposed).lower(a, b).as_text()
    assert texts[0] == texts[1] != texts[2] and "einsum" not in texts[0]
    x = jnp.ones(64)  # two more alike but for the entry's number lowering gave them (`main.1`, `main.2`)
    relu, maximum = (optimized_text(jax.jit(f).lower(x).compile().runtime_executable())
                     for f in (jax.nn.relu, lambda x: jnp.maximum(x, 0.0)))
    assert relu == maximum
