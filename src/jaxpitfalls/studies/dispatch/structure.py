"""Where dispatch claims are judged: BERT-base's shape, else its 12-layer pytree, narrower (supporting)."""

from __future__ import annotations

from ...contract.decisions import at_write_up_structure, median_of, row
from ...contract.judging import Run
from ...contract.verdicts import SUPPORTING
from .spec import BERT_BASE, SPEC


def width_note(run: Run, config_id: str | None) -> str:
    """'' at BERT-base's whole shape (or None); else words marking a supporting verdict at another width or depth."""
    if config_id is None:
        return ""
    shape = row(run.steps.drop_duplicates("config_id"), config_id=config_id)
    if int(shape.layers) != BERT_BASE["layers"]:
        return f" (depth {int(shape.layers)}, not BERT-base's {BERT_BASE['layers']} layers: {SUPPORTING})"
    return "" if int(shape.hidden) == BERT_BASE["hidden"] else (
        f" (BERT-base's {BERT_BASE['layers']}-layer pytree at hidden {int(shape.hidden)}, not its "
        f"{BERT_BASE['hidden']}: {SUPPORTING})")


def at_pytree(run: Run, available: set[str]) -> tuple[str, str]:
    """Where to judge at BERT-base's 12-layer pytree: there if `available` has it, else the base; with `width_note`."""
    where = run.at("where")
    at = where if where in available else run.base_id
    return at, width_note(run, at)


def no_dropout(run: Run) -> tuple:
    """The write-up's no-dropout pair of median steps where BERT-base's shape ran without dropout, else Nones."""
    at = at_write_up_structure(run.comp, SPEC.claims["slower"].numbers[3])
    return tuple(None if at is None else median_of(run.steps, at, variant, "blocked")
                 for variant in ("filter_jit", "jit_partition"))
