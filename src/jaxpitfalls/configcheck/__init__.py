"""The config checked before anything runs, every problem at once: the schema, then every constraint a job would find
only once started. Light (no JAX), so `snakemake -n` fails on a bad config."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import plan, registry, results
from ..benchfile import reader
from ..benchfile import spec as benchfile_spec
from ..contract.settings import processes_problem
from .declared import declared_problems
from .paths import path_problems
from .schema import fill_defaults, load, schema_problems
from .sizes import size_problems

DETAIL_LOG = "results/logs/config.log"


class InvalidConfig(ValueError):
    """The config cannot run as given; the message lists every problem."""


def _study_folders(config: dict[str, Any]) -> list[str]:
    """The config's study folders, read first: their fragments are part of the schema."""

    folders = config.get("study_folders", [])
    return folders if isinstance(folders, list) and all(isinstance(f, str) for f in folders) else []


def _benchmark_files(config: dict[str, Any]) -> dict[str, str]:
    """The config's benchmark files by study name, read before the schema: their axes are part of it."""

    studies = config.get("studies", {})
    return {name: block["file"] for name, block in (studies.items() if isinstance(studies, dict) else [])
            if isinstance(block, dict) and isinstance(block.get("file"), str)}


def _processes_problems(config: dict[str, Any]) -> list[str]:
    """Each study's `measure` processes as Timing would refuse them, and the lockstep's (`compare`, allocated)."""
    blocks = [(f"studies.{name}.measure", study.get("measure", {}))
              for name, study in config.get("studies", {}).items()]
    if config.get("compare", {}).get("sides"):
        compare = config["compare"]
        blocks += [("compare", compare)] + [(f"compare.allocation.{config_id}", compare | own)
                                            for config_id, own in compare.get("allocation", {}).items()]
    found = []
    for at, block in blocks:
        problem = processes_problem(block.get("processes", 1), block.get("target_precision", 0),
                                    block.get("max_processes", 0), block.get("target_share", 1))
        if problem:
            found.append(f"config {at}.{problem}")
    return found


def _unplaced(config: dict[str, Any], files: dict[str, str]) -> Iterator[str]:
    """An expectation judged `at` a value no configuration of its block times: refused now, not read as not
    measured after every timing job (a refused file's too, where its sentence reads)."""
    for name in (n for n in files if config["studies"][n].get("enabled", True)):  # the schema's default
        confs = plan.configurations(config["studies"][name])
        try:
            expectations = reader.read(Path(files[name]).expanduser()).expectations
        except reader.BenchFileRefused as refused:
            expectations = refused.readable
        for e in expectations:
            if e.at and not any(e.at_value(c.get(e.at[0])) for c in confs):
                timed = ", ".join(dict.fromkeys(str(c.get(e.at[0])) for c in confs))
                yield (f"config studies.{name}: EXPECT {e.text!r} is judged {e.where}, which no configuration of "
                       f"the block times ({e.at[0]}: {timed}): add it to `sweep` or `points`")


def _unjudged(config: dict[str, Any]) -> Iterator[str]:
    """A study of the user's folders whose claims.py judges not every claim its spec judges, or whose report.py
    lacks a name Report has: refused now, not by the report after every timing job (the packaged studies' are
    tested)."""
    for name in plan.enabled_studies(config):
        if not registry.is_file(name) and registry.FOLDER not in registry.where(name).parents:
            missing = registry.judges(name).missing()
            if missing:
                yield (f"study {name}: {registry.where(name) / 'claims.py'} judges none of {missing}: add a "
                       "function for each (@JUDGES(key)), or give the claim checked= or not_measured= in spec.py")
            try:
                lacks = registry.report_lacks(name)
            except registry.StudyRefused as e:
                lacks = None
                yield f"study {name}: {e}"
            if lacks:
                yield (f"study {name}: {registry.where(name) / 'report.py'} does not define {lacks}, which every "
                       "study's report.py does (contract/interface.py's Report; docs/development.md)")


def require_valid(config: dict[str, Any], schema_path: str | Path) -> None:
    """Validate against the assembled schema and fill in defaults, or raise InvalidConfig; then check the
    models, files and flags it names."""
    try:  # the user's own studies join the packaged ones for this process and every one it starts
        registry.use_folders(_study_folders(config))
    except registry.StudyRefused as e:
        raise InvalidConfig(f"1 problem in the config:\nconfig study_folders: {e}") from None
    # and the user's benchmark files, each a study under the name its block has; one refused, the rest of the
    # config is checked without its block, so that every problem is said at once
    files = _benchmark_files(config)
    refused = registry.file_problems(files)
    registry.use_files({name: path for name, path in files.items() if name not in refused})
    setups = {name: benchfile_spec.schema(setup) for name in refused
              if (setup := reader.setup_of(Path(files[name]).expanduser()))}  # their blocks checked all the same
    whole = config
    if refused:
        config = {**config, "studies": {k: v for k, v in config["studies"].items() if k not in refused}}
    try:
        schema = load(schema_path)  # every study's spec: one that breaks the contract is refused here
        problems, detail = schema_problems({**config, "studies": {**config["studies"], **{
            name: whole["studies"][name] for name in setups}}}, load(schema_path, setups) if setups else schema)
    except registry.StudyRefused as e:
        raise InvalidConfig(f"1 problem in a study:\n{e}") from None
    if not problems:
        fill_defaults(config, schema)
        problems = [*size_problems(config), *path_problems(config, frozenset(refused)), *declared_problems(config),
                    *_processes_problems(config), *_unjudged(config),
                    *_unplaced(whole, {n: path for n, path in files.items() if n not in refused or n in setups})]
    problems = [f"config {line}" for lines in refused.values() for line in lines] + problems
    if not problems:
        return
    note = ""
    if detail:
        results.write_text(DETAIL_LOG, "\n\n".join(detail) + "\n")
        note = f"\n(the schema's full detail of each: {DETAIL_LOG})"
    raise InvalidConfig(f"{len(problems)} problem{'s' * (len(problems) > 1)} in the config:\n"
                        + "\n".join(problems) + note)
