"""What the workflow will run, from the validated config alone: studies, configurations, models.

Imported by the Snakefile, so it stays light (no JAX) and `snakemake -n` fast.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from . import registry, sources
from .benchfile.spec import compiles_on_purpose
from .contract.naming import settings_of, value_label
from .contract.settings import without_idle_share
from .contract.tables import TABLES

# The text corpus (made by `prepare_data`) of the studies whose spec `reads_corpus`.
CORPUS = "results/data/corpus"


def enabled_studies(config: dict[str, Any]) -> list[str]:
    """The studies the config enables, in its order."""
    return [name for name, block in config["studies"].items() if block.get("enabled", False)]


def reads_corpus(study: str) -> bool:
    return registry.spec(study).reads_corpus


def configurations(study: dict[str, Any]) -> list[dict[str, Any]]:
    """The base configuration, one-axis-at-a-time sweeps, then explicit `points` (deduplicated, in order),
    each with its sweep axes, an id of every key's value, and its model's name."""
    base = study["base"]
    keys = list(base)
    unknown = set(study.get("sweep", {})) - set(keys)
    if unknown:
        raise ValueError(f"sweep axes {sorted(unknown)} are not keys of the study's base {keys}")
    confs: dict[str, dict[str, Any]] = {}

    def add(conf: dict[str, Any], axis: str) -> None:
        conf_id = "-".join(f"{k}{value_label(conf[k])}" for k in keys)
        previous = confs.get(conf_id, {}).get("axes", [])
        axes_of = previous if axis in previous else [*previous, axis]
        confs[conf_id] = conf | {"id": conf_id, "axes": axes_of}

    for axis in keys:
        for value in [base[axis], *study.get("sweep", {}).get(axis, [])]:
            add(dict(base) | {axis: value}, axis)
    for point in study.get("points", []):
        add(dict(base) | point, "points")
    for conf in confs.values():
        if "model_family" in study:
            conf["model"] = model_name(study["model_family"], conf["layers"], conf["hidden"])
    return list(confs.values())


def base_id(study: dict[str, Any]) -> str:
    """The base configuration's id: the first (is_base cannot tell it where the base has one key)."""
    return configurations(study)[0]["id"]


_MODEL_NAME = re.compile(r"(?P<family>[a-z0-9_]+)-L(?P<layers>\d+)-H(?P<hidden>\d+)")


def history_configurations(config: dict[str, Any]) -> list[dict[str, Any]]:
    """The configurations of the history's study timed in every release: its base, or all of them."""
    confs = configurations(config["studies"][config["history"]["study"]])
    return confs if config["history"]["configs"] == "all" else confs[:1]


def timing_settings(config: dict[str, Any], study: str) -> dict[str, Any]:
    """The `measure` keys a timing job reads (`StudySpec.timing`): editing another reruns no timing job."""
    return without_idle_share(_read_by(config["studies"][study]["measure"], registry.spec(study).timing.keys()))


def trace_settings(config: dict[str, Any], study: str, config_id: str) -> dict[str, Any]:
    """The `measure` keys the trace of `config_id` reads (`StudySpec.traced`); `captures` at the base only,
    whose spread the claims read."""
    settings = _read_by(config["studies"][study]["measure"], registry.spec(study).traced.keys())
    if config_id != base_id(config["studies"][study]):
        settings.pop("captures", None)
    return settings


def _read_by(measure: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    return {k: measure[k] for k in keys if k in measure}


def model_name(family: str, layers: int, hidden: int) -> str:
    return f"{family}-L{layers}-H{hidden}"


def model_spec(config: dict[str, Any], name: str) -> dict[str, Any]:
    """The family defaults plus the size encoded in a model name (`bert-L4-H64`)."""
    match = _MODEL_NAME.fullmatch(name)
    if match is None:
        raise ValueError(f"model name {name!r} is not <family>-L<layers>-H<hidden>")
    family = match["family"]
    if family not in config["models"]:
        raise ValueError(f"model family {family!r} has no block under 'models' in the config")
    defaults = {k: v for k, v in config["models"][family].items() if k != "local_dirs"}
    return defaults | {
        "family": family, "layers": int(match["layers"]), "hidden": int(match["hidden"]),
        # only this model's directory: adding another model's must not change this model's jobs
        "local_dir": config["models"][family].get("local_dirs", {}).get(name),
    }


def job_model_spec(config: dict[str, Any], conf: dict[str, Any]) -> dict[str, Any]:
    """The model spec of a job's configuration (none for a benchmark file, whose setup builds its inputs)."""
    return model_spec(config, conf["model"]) if "model" in conf else {}


def configuration(config: dict[str, Any], study: str, conf_id: str) -> dict[str, Any]:
    for conf in configurations(config["studies"][study]):
        if conf["id"] == conf_id:
            return conf
    raise KeyError(f"study {study!r} has no configuration {conf_id!r}")


def timing_configuration(config: dict[str, Any], study: str, conf_id: str) -> dict[str, Any]:
    """The configuration as its timing job gets it: with `anchor` (the base) where they differ only in keys
    compared across jobs (StudySpec.anchored); at the base, with `beside`, settings timed beside it instead of in
    jobs of their own. Traces, lockstep and history jobs time neither."""
    block = config["studies"][study]
    conf, base = configuration(config, study, conf_id), configurations(block)[0]
    differs = {k for k, v in settings_of(conf).items() if v != base[k]}
    anchored = differs and differs <= set(registry.spec(study).anchored)
    beside = block.get("beside", []) if conf["id"] == base["id"] else []
    for i, setting in enumerate(beside):
        if all(base[key] == value for key, value in setting.items()):
            raise ValueError(f"studies.{study}.beside[{i}]: {setting} is the base's own setting, timed already")
    return conf | ({"anchor": {k: base[k] for k in ("id", "model", *settings_of(base))}} if anchored else {}) | (
        {"beside": [dict(setting) for setting in beside]} if beside else {})


def traced_configurations(config: dict[str, Any], study: str) -> list[dict[str, Any]]:
    """Configurations that get a profiler pass: all, or the base only (`trace: base`: large ones are slow under
    the Python tracer)."""
    confs = configurations(config["studies"][study])
    return confs if config["studies"][study]["trace"] == "all" else confs[:1]


def job_runtime(config: dict[str, Any], study: str) -> dict[str, str]:
    """What a measuring job sets before JAX starts: XLA flags and the compilation cache ("" for none: a file
    timing first runs or calls that compile has none, whatever its block says, or they would read programs from it)."""
    block = config["studies"][study]
    cached = block["compilation_cache"] and not (registry.is_file(study) and compiles_on_purpose(registry.where(study)))
    return {
        "xla_flags": " ".join(filter(None, [config["xla_flags"], block["xla_flags"]])),
        "jax_cache_dir": config["jax_cache_dir"] if cached else "",
    }


def study_models(config: dict[str, Any], study: str) -> list[str]:
    return sorted({c["model"] for c in configurations(config["studies"][study]) if "model" in c})


def own_preparations(config: dict[str, Any], study: str) -> list[str]:
    """The preparation jobs (`<rule>/<name>`) only this study needs: their time is part of its cost."""
    def needs(name: str) -> set[str]:
        return {f"prepare_model/{m}" for m in study_models(config, name)} | (
            {"prepare_data/corpus"} if reads_corpus(name) else set())

    others = {job for s in enabled_studies(config) if s != study for job in needs(s)}
    return sorted(needs(study) - others)


def report_settings(config: dict[str, Any]) -> dict[str, Any]:
    """The config keys the report shows, and only those, so another key's edit does not rerun render_report."""
    studies = enabled_studies(config)
    families = sorted({config["studies"][s]["model_family"] for s in studies if "model_family" in config["studies"][s]})
    return {"run_target_s": config["run_target_s"], "memory_target_gib": config["memory_target_gib"],
            "studies": {s: config["studies"][s] for s in studies}, "models": {f: config["models"][f] for f in families},
            "preparations": {s: own_preparations(config, s) for s in studies}}


def job_inputs(config: dict[str, Any], study: str, conf_id: str) -> dict[str, str]:
    """A measuring job's input directories by name: its model, and the corpus where the study reads it."""
    model = configuration(config, study, conf_id).get("model")
    return ({"model": f"results/models/{model}"} if model else {}) | ({"data": CORPUS} if reads_corpus(study) else {})


def timing_inputs(config: dict[str, Any], study: str, conf_id: str) -> dict[str, str]:
    """`job_inputs`, and the base's model where the configuration is anchored to it."""
    anchor = timing_configuration(config, study, conf_id).get("anchor")
    return job_inputs(config, study, conf_id) | ({"anchor_model": f"results/models/{anchor['model']}"}
                                                   if anchor else {})


def all_models(config: dict[str, Any]) -> list[str]:
    return sorted({m for s in enabled_studies(config) for m in study_models(config, s)})


def table_paths(study: str) -> dict[str, str]:
    return {t: f"results/tables/{study}/{t}.csv" for t in TABLES}


def gated(config: dict[str, Any]) -> bool:
    """Whether a comparison is to fail the run (compare.fail_on_*)."""
    return bool(config["compare"]["fail_on_regression"] or config["compare"]["fail_on_inconclusive"])


def compared_report(config: dict[str, Any]) -> str:
    """The comparison's report: the sides' in lockstep, or against a baseline run."""
    return "reports/compare_lockstep.md" if config["compare"]["sides"] else "reports/compare.md"


GATE_PASSED = "results/tables/compare.passed"  # the compare gate's verdict where it passed


def gate_note(config: dict[str, Any]) -> str:
    """The gate's verdict at a run's end where it passed (a failing gate ends the run saying its own)."""
    if not gated(config) or not os.path.isfile(GATE_PASSED):
        return ""
    with open(GATE_PASSED) as passed:
        return f"The comparison gate passed: {passed.read().strip()} ({compared_report(config)} has every row)."


def ungated_note(config: dict[str, Any], targets: Iterable[str]) -> str:
    """What to say where a gated comparison's report is asked for without its gate."""
    targets = {os.path.normpath(t) for t in targets}  # a path as `./reports/compare.md`, or a rule's name
    reports = {"reports/compare_lockstep.md", "reports/compare.md", "compare_lockstep", "compare"}
    if not gated(config) or not targets & reports or targets & {"compare_gate", GATE_PASSED, "all"}:
        return ""
    return ("Note: compare.fail_on_* is set, but the report alone does not gate: ask for `compare_gate` (the report, "
            "then the gate) or for nothing (the whole run) to fail on what it judges.")


def release_imports(config: dict[str, Any]) -> list[str]:
    """A history's benchmark file's own imports, which each release's environment must hold."""
    study = config["history"]["study"]
    return list(sources.installed_imports(registry.where(study))) if registry.is_file(study) else []
