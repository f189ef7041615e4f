"""What the `toy` study is (contract.interface.StudySpec)."""

from __future__ import annotations

from pathlib import Path

from jaxpitfalls.breakdown import Component
from jaxpitfalls.contract.interface import Claim, StudySpec

SPEC = StudySpec(
    name="toy",
    variants=("eager", "jit"),
    floor="jit",
    modes={"call": "one call of the function, waited for"},
    traced_mode="call",
    trace_components=(Component("executable", prefixes=("PjitFunction(",),
                                description="C++ dispatch and the compiled program (PjitFunction)"),),
    claims={"jit_faster": Claim("jax.jit makes a small function faster than eager dispatch", "none (a toy)",
                                rule="eager / jit, 95% interval above 1")},
    schema=Path(__file__).with_name("config.schema.yaml"),
)
