"""After failed jobs (the Snakefile's `onerror`, from Snakemake's log): the configurations they stood for, and a
config overlay leaving those out, as the report needs every configuration's result."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

from . import plan
from .contract.naming import is_base
from .results import write_text

OVERLAY = "results/without-failed.yaml"
# A configuration's own jobs, by their outputs (workflow/rules/studies.smk, traces.smk, models.smk).
_OF_CONFIGURATION = re.compile(r"results/(?:runs|traces|tables/overhead)/(?P<study>[^/]+)/(?P<config>[^/]+?)"
                               r"(?:\.json|\.csv)?$")
_OF_MODEL = re.compile(r"results/models/(?P<model>[^/]+)$")
_ERROR = re.compile(r"^Error in rule (?P<rule>\w+):$")


def failed(log_text: str) -> list[tuple[str, str]]:
    """(rule, output) of every failed job in a Snakemake log, in its order."""
    found, rule = [], None
    for line in log_text.splitlines():
        if match := _ERROR.match(line.strip()):
            rule = match["rule"]
        elif rule and line.strip().startswith("output:"):
            found += [(rule, out.strip()) for out in line.split(":", 1)[1].split(",")]
            rule = None
    return found


def configurations_of(config: dict[str, Any], output: str) -> Iterator[tuple[str, dict[str, Any]]]:
    """(study, configuration) a failed job's output stood for: its own, or every one its model serves."""
    for study in plan.enabled_studies(config):
        for conf in plan.configurations(config["studies"][study]):
            if (match := _OF_CONFIGURATION.search(output)) and (match["study"], match["config"]) == (study, conf["id"]):
                yield study, conf
            elif (match := _OF_MODEL.search(output)) and conf.get("model") == match["model"]:
                yield study, conf


def without(config: dict[str, Any], confs: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The overlay that drops each configuration's sweep value or point (a base cannot be dropped: left out)."""
    overlay: dict[str, Any] = {}
    for study, conf in confs:
        block = config["studies"][study]
        base, sweep, points = block["base"], block.get("sweep", {}), block.get("points", [])
        kept = overlay.setdefault("studies", {}).setdefault(study, (
            {"sweep": {axis: list(values) for axis, values in sweep.items()}} if sweep else {}) | (
            {"points": list(points)} if points else {}))
        for axis in conf["axes"]:
            if axis in kept.get("sweep", {}):
                kept["sweep"][axis] = [v for v in kept["sweep"][axis] if v != conf[axis]]
        if points:
            kept["points"] = [p for p in kept["points"] if base | p != {k: conf[k] for k in base}]
    return overlay


def advice(config: dict[str, Any], logs: str | Iterable[str]) -> str:
    """What to do next (writing the overlay where configurations can be left out); "" where no job failed."""
    jobs = [job for log in ([logs] if isinstance(logs, str) else logs) for job in failed(Path(log).read_text())]
    if not jobs:
        return ""
    confs = {(s, c["id"]): (s, c) for _, out in jobs for s, c in configurations_of(config, out)}
    lines = [f"{len(jobs)} job(s) failed ({', '.join(sorted({rule for rule, _ in jobs}))}); every finished result "
             "is kept, and running the same command again reruns only what is missing."]
    bases = sorted(f"{s} {c['id']}" for s, c in confs.values() if is_base(c))
    if bases:
        lines.append(f"A base configuration failed ({'; '.join(bases)}): every claim of its study reads it, so it "
                     "cannot be left out; fix the cause (its log above).")
    dropped = [(s, c) for s, c in confs.values() if not is_base(c)]
    if dropped and not bases:
        write_text(OVERLAY, yaml.safe_dump(without(config, dropped), sort_keys=False))
        names = "; ".join(sorted(f"{s} {c['id']}" for s, c in dropped))
        lines.append(f"To report every finished configuration without the failed ones, add "
                     f"{Path(OVERLAY).resolve()} last to the command's --configfile files (it leaves out: {names}).")
        lines += [f"Remove models.{key} from your config too: no configuration left uses it." for key in
                  _unused_local_dirs(config, dropped)]
    return "\n".join(lines)


def _unused_local_dirs(config: dict[str, Any], dropped: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """`family.local_dirs.model` of each model only dropped configurations used (the config check refuses it)."""
    gone = {(s, c["id"]) for s, c in dropped}
    kept = {c.get("model") for s in plan.enabled_studies(config) for c in plan.configurations(config["studies"][s])
            if (s, c["id"]) not in gone}
    return sorted(f"{family}.local_dirs.{model}" for family, block in config["models"].items()
                  for model in block.get("local_dirs", {}) if model in {c.get("model") for _, c in dropped} - kept)
