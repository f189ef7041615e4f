"""The config checked before anything runs: the schema, then every constraint a job would otherwise find
only when it starts (or never). Every problem at once, one line each, naming the key and what to do.

Imported by the Snakefile, so it stays light (no JAX): `snakemake -n` fails on a bad config and no job starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .. import results
from .paths import path_problems
from .schema import load, schema_problems
from .sizes import size_problems

DETAIL_LOG = "results/logs/config.log"


class InvalidConfig(ValueError):
    """The config cannot run as given; the message lists every problem."""


def require_valid(config: dict[str, Any], schema_path: str | Path) -> None:
    """Validate the config and fill in the schema's defaults (Snakemake's `validate`), or raise
    InvalidConfig. Schema violations come first (their full jsonschema detail goes to DETAIL_LOG); only a
    config that fits the schema, defaults filled in, is checked for what its studies ask of the models,
    files and flags it names."""
    problems, detail = schema_problems(config, load(schema_path))
    if not problems:
        from snakemake.utils import validate

        validate(config, str(schema_path))
        problems = size_problems(config) + path_problems(config)
    if not problems:
        return
    note = ""
    if detail:
        results.write_text(DETAIL_LOG, "\n\n".join(detail) + "\n")
        note = f"\n(the schema's full detail of each: {DETAIL_LOG})"
    raise InvalidConfig(f"{len(problems)} problem{'s' * (len(problems) > 1)} in the config:\n"
                        + "\n".join(problems) + note)
