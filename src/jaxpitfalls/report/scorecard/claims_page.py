"""docs/results/claims.md: each write-up's claims and how a run treats each, generated from the specs so page and
report cannot drift. Run `jaxpitfalls claims docs/results/claims.md` after editing a spec's claims."""

from __future__ import annotations

import argparse

import pandas as pd

from ... import registry, results
from ...contract.interface import Claim

INTRO = """\
# What the write-ups claimed

The four studies reproduce five write-ups on JAX and Equinox performance pitfalls (the dispatch cost of
`eqx.filter_jit`, batched `eqx.tree_at` for tensor parallelism, activation extraction, and generation with a KV
cache). Each claim below is stated in this project's words, with the number the write-up gave for it and the
hardware it was measured on where the write-up says. A run of the workflow judges every claim it can measure
in its report's scorecard, on 95% intervals, at the write-up's model structure where the preset runs it (the
latest reference: [reference/README.md](reference/README.md)); a claim is otherwise *checked* by every job (a
guard that fails the job when it does not hold) or *not measured*, with the reason.

Generated from the studies' specs (`src/jaxpitfalls/studies/*/spec.py`, `claims`): edit a claim there and run
`jaxpitfalls claims docs/results/claims.md`.
"""


def treatment(claim: Claim) -> str:
    """How a run treats the claim, in the page's words."""
    if claim.checked:
        return f"checked by every job: {claim.checked}"
    if claim.not_measured:
        return f"not measured: {claim.not_measured}"
    return f"judged in the report's scorecard: {claim.stated_rule}"


def _description(name: str) -> str:
    """The study's description (its package docstring), without its title."""
    return registry.description(name).strip().partition("\n\n")[2].strip()


def _study(name: str) -> list[str]:
    claims = registry.spec(name).claims
    rows = pd.DataFrame([{"claim": c.text.replace("|", "\\|"), "the write-up": c.write_up.replace("|", "\\|"),
                          "here": treatment(c).replace("|", "\\|")} for c in claims.values()])
    judged = sum(c.judged for c in claims.values())
    return [f"## {name}", "", _description(name), "",
            f"{len(claims)} claim{'s' * (len(claims) != 1)}: {judged} judged, {len(claims) - judged} checked or not "
            "measured.", "",
            rows.to_markdown(index=False), ""]


def page() -> str:
    return "\n".join([INTRO, *(line for name in registry.names() for line in _study(name))])


def main(argv: list[str]) -> int:
    """`jaxpitfalls claims docs/results/claims.md`: the page written from the specs."""
    parser = argparse.ArgumentParser(prog="jaxpitfalls claims", description="the write-ups' claims page from the specs")
    parser.add_argument("page", help="where to write it, e.g. docs/results/claims.md")
    results.write_text(parser.parse_args(argv).page, page())
    return 0
