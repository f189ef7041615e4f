"""Where the dispatch claims are judged: BERT-base's whole shape (its layers and width) where the preset ran it,
or its 12-layer pytree at a smaller width, where a millisecond overhead shows on a short step; a claim judged
there says so and is not counted as measured at the write-up's structure."""

from __future__ import annotations

from ...contract.decisions import at_write_up_structure, median_of, row
from ...contract.judging import Run
from ...contract.verdicts import SUPPORTING
from .spec import BERT_BASE, SPEC


def width_note(run: Run, config_id: str | None) -> str:
    """'' at BERT-base's whole shape (or None: not at its pytree); at its 12-layer pytree at another width, or
    at another depth, the words that say so: such a claim is judged there (a millisecond overhead shows on a
    short step) but not counted as measured at the write-up's structure (`ours` stays empty)."""
    if config_id is None:
        return ""
    shape = row(run.steps.drop_duplicates("config_id"), config_id=config_id)
    if int(shape.layers) != BERT_BASE["layers"]:
        return f" (depth {int(shape.layers)}, not BERT-base's {BERT_BASE['layers']} layers: {SUPPORTING})"
    return "" if int(shape.hidden) == BERT_BASE["hidden"] else (
        f" (BERT-base's {BERT_BASE['layers']}-layer pytree at hidden {int(shape.hidden)}, not its "
        f"{BERT_BASE['hidden']}: {SUPPORTING})")


def at_pytree(run: Run, available: set[str]) -> tuple[str, str]:
    """Where a claim judged at BERT-base's 12-layer pytree is judged: there, where `available` holds it, with the
    words that say at which width (`width_note`); else the base, with the words that say what it is."""
    where = run.at("where")
    at = where if where in available else run.base_id
    return at, width_note(run, at)


def no_dropout(run: Run) -> tuple:
    """The write-up's no-dropout pair, each variant's median step, where the run timed BERT-base's shape with
    dropout 0 (a configuration of its own), else not measured."""
    at = at_write_up_structure(run.comp, SPEC.claims["slower"].numbers[3])
    return tuple(None if at is None else median_of(run.steps, at, variant, "blocked")
                 for variant in ("filter_jit", "jit_partition"))
