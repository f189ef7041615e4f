"""What the config names outside itself (models, baseline, corpus packages, XLA flags), checked before any job."""

from __future__ import annotations

import importlib.util
import os
import tarfile
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import Any

from packaging.version import InvalidVersion, Version

from .. import pins, plan, registry, revisions
from ..data import long_description
from ..models.hf_config import unsupported_activation
from .sizes import read_local


def _local_dirs(config: dict[str, Any]) -> Iterator[str]:
    used = set(plan.all_models(config))
    for family, block in config["models"].items():
        for name, directory in block.get("local_dirs", {}).items():
            where = f"config models.{family}.local_dirs.{name} = {directory!r}"
            if name not in used:
                yield (f"{where}: no enabled study uses a model named {name} (they use "
                       f"{', '.join(sorted(m for m in used if m.startswith(family + '-'))) or 'none of this family'})")
                continue
            try:
                local = read_local(directory)
            except OSError as e:
                yield f"{where}: not a readable Hugging Face model directory ({e.strerror}: config.json)"
                continue
            except ValueError as e:
                yield f"{where}: its config.json is not JSON ({e})"
                continue
            if local.get("model_type") != family:
                yield f"{where}: its config.json says model_type {local.get('model_type')!r}, not {family!r}"
            elif problem := unsupported_activation(family, local):
                yield f"{where}: {problem}"


def _baseline(config: dict[str, Any]) -> Iterator[str]:
    root = config["compare"]["baseline"]
    if not root:
        return
    where, path = f"config compare.baseline = {root!r}", Path(root)
    if not path.exists():
        yield f"{where}: no such file or directory (relative paths start at the run's directory, {Path.cwd()})"
    elif path.is_file() and not tarfile.is_tarfile(path):
        yield f"{where}: a file, but not a results bundle (reports/bundle.tar.gz of another run)"
    elif path.is_dir() and not (any(path.glob("**/runs/*/*.json")) or any(path.glob("*/*.json"))):
        yield f"{where}: holds no result JSONs (runs/<study>/<configuration>.json): not a run's directory or results/"


def _sides(config: dict[str, Any], refused: frozenset[str]) -> Iterator[str]:
    compare = config["compare"]
    if not compare["sides"] and not compare["baseline"]:
        gated = [key for key in ("fail_on_regression", "fail_on_inconclusive", "primary") if compare[key]]
        if gated:
            yield (f"config compare.{gated[0]}: nothing is compared, so no gate runs (set compare.sides, or "
                   "compare.baseline to a run's results folder)")
    if not compare["sides"]:
        if compare["pyperf"]["callable"]:
            yield ("config compare.pyperf.callable: pyperf is timed beside sides in lockstep (the calibration); "
                   "compare.sides is empty")
        for key in ("allocation", "variants"):
            if compare[key]:
                yield f"config compare.{key}: it shapes lockstep jobs, and compare.sides is empty"
        return
    if compare["baseline"]:
        yield ("config compare.baseline and compare.sides: one comparison at a time (a baseline run, or sides timed "
               "in lockstep); empty one of them")
    if len(compare["sides"]) < 2:
        yield f"config compare.sides: {len(compare['sides'])} side; a comparison needs two or more"
    if compare["study"] in refused:
        return
    if compare["study"] not in plan.enabled_studies(config):
        yield (f"config compare.study = {compare['study']!r}: not an enabled study (enabled: "
               f"{', '.join(plan.enabled_studies(config))})")
    elif not registry.spec(compare["study"]).lockstep:
        able = [name for name in registry.names() if registry.spec(name).lockstep]
        yield (f"config compare.study = {compare['study']!r}: cannot be timed in lockstep yet (its measure.py has "
               f"no samplers(); studies that can: {', '.join(able)})")
    else:
        yield from _allocation(compare, config["studies"][compare["study"]])
    for name, side in compare["sides"].items():
        if side.get("revision"):
            try:
                revisions.same_variants(compare["study"], revisions.commit(compare["study"], side["revision"]))
            except revisions.RevisionRefused as e:
                yield f"config compare.sides.{name}.revision = {side['revision']!r}: {e}"
        python = side.get("python", "")
        if python and not (Path(python).is_file() and os.access(python, os.X_OK)):
            yield (f"config compare.sides.{name}.python = {python!r}: not an executable file (a venv's bin/python; "
                   "'make .venv-<spec>/.installed' makes one from envs/<spec>.txt)")


def _allocation(compare: dict[str, Any], study: dict[str, Any]) -> Iterator[str]:
    """Each configuration `compare.allocation` names that the study does not run."""
    ids = [conf["id"] for conf in plan.configurations(study)]
    for config_id in compare["allocation"]:
        if config_id not in ids:
            yield (f"config compare.allocation.{config_id}: not a configuration of {compare['study']} (its "
                   f"configurations: {', '.join(ids)})")


def _jobs_run_here() -> bool:
    """Whether this interpreter can run the jobs (JAX installed); a driver that only parses has no corpus packages."""
    return importlib.util.find_spec("jax") is not None


def _packages(config: dict[str, Any]) -> Iterator[str]:
    if not any(map(plan.reads_corpus, plan.enabled_studies(config))) or not _jobs_run_here():
        return
    for i, name in enumerate(config["data"]["packages"]):
        try:
            text = long_description(name)
        except metadata.PackageNotFoundError:
            yield f"config data.packages[{i}] = {name!r}: not an installed package, so it has no README for the corpus"
            continue
        if not text:
            yield f"config data.packages[{i}] = {name!r}: ships no long description (README) to use as text"


def _xla_flags(config: dict[str, Any]) -> Iterator[str]:
    settings = [("xla_flags", config["xla_flags"])] + [
        (f"studies.{s}.xla_flags", config["studies"][s]["xla_flags"]) for s in plan.enabled_studies(config)] + [
        (f"compare.sides.{name}.env.XLA_FLAGS", side["env"]["XLA_FLAGS"]) for name, side in
        config["compare"]["sides"].items() if "XLA_FLAGS" in side.get("env", {})]
    for key, flags in settings:
        for flag in flags.split():
            if not flag.startswith("--"):
                yield f"config {key} = {flags!r}: {flag!r} is not a flag (XLA's start with --)"


# What JAX and XLA read from the environment: a side's `env` naming one nearly (XLA_FLAG) would time the sides
# alike, silently.
READ_BY_JAX = ("XLA_FLAGS", "XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_MEM_FRACTION",
               "XLA_PYTHON_CLIENT_ALLOCATOR", "JAX_PLATFORMS", "JAX_ENABLE_X64", "JAX_DEFAULT_MATMUL_PRECISION",
               "CUDA_VISIBLE_DEVICES", "OMP_NUM_THREADS")


def _one_edit(a: str, b: str) -> bool:
    """Whether `a` is `b` with one character added, dropped or changed."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return False
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return a[i + 1:] == b[i + 1:] or a[i:] == b[i + 1:] or a[i + 1:] == b[i:]


def _side_env(config: dict[str, Any]) -> Iterator[str]:
    for name, side in config["compare"]["sides"].items():
        for var in side.get("env", {}):
            near = [known for known in READ_BY_JAX if _one_edit(var, known)]
            if var.startswith(("XLA_", "JAX_")) and near:
                yield (f"config compare.sides.{name}.env.{var}: nothing reads it; {near[0]} is what JAX or XLA "
                       "read (the sides would be timed alike)")


def _cache_dir(config: dict[str, Any]) -> Iterator[str]:
    where = Path(config["jax_cache_dir"])
    if config["jax_cache_dir"] and where.exists() and not where.is_dir():
        yield f"config jax_cache_dir = {config['jax_cache_dir']!r}: a file, not a directory for the cache"


def _history(config: dict[str, Any], refused: frozenset[str]) -> Iterator[str]:
    history = config["history"]
    if history["study"] in refused:
        pass
    elif history["study"] not in config["studies"]:
        yield f"config history.study = {history['study']!r}: not a study (studies: {', '.join(config['studies'])})"
    elif history["versions"] and history["study"] not in plan.enabled_studies(config):
        yield (f"config history.study = {history['study']!r}: not an enabled study (enabled: "
               f"{', '.join(plan.enabled_studies(config))}; set studies.{history['study']}.enabled: true)")
    try:
        ordered = sorted(history["versions"], key=Version)
    except InvalidVersion:  # a release that is not PEP 440: its order is the user's
        ordered = history["versions"]
    if history["versions"] != ordered:
        yield (f"config history.versions: oldest first, as steps are read in this order ({', '.join(ordered)}), "
               f"not {', '.join(history['versions'])}")
    if history["versions"] and registry.is_file(history["study"]):
        yield from _file_jax(history)
    for key in ("pins", "pythons"):
        for release in history[key]:
            if release not in history["versions"]:
                yield f"config history.{key}.{release}: not one of history.versions {history['versions']}"
    for release, python in history["pythons"].items():
        if not Path(python).is_file():
            yield f"config history.pythons.{release} = {python!r}: not a file (an environment's bin/python)"


def _older(version: str, than: str) -> bool:
    try:
        return Version(version) < Version(than)
    except InvalidVersion:  # a pattern such as "0.7.*": pip reads it, the check cannot
        return False


def _file_jax(history: dict[str, Any]) -> Iterator[str]:
    """Built releases whose JAX a benchmark file's jobs cannot run on."""
    for release in (r for r in history["versions"] if r not in history["pythons"]):
        lines = pins.requirement_lines(history["package"], release, history["with"], history["pins"].get(release, {}))
        jax = next((line.split("==")[1] for line in lines if line.startswith("jax==")), None)
        if jax and _older(jax, pins.FILE_JAX):
            yield (f"config history.versions: {history['package']} {release} gets jax {jax}, and a benchmark file's "
                   f"jobs need jax {pins.FILE_JAX} or newer (their check that variants differ reads each program "
                   "JAX compiles): pin one in history.with or history.pins")


def path_problems(config: dict[str, Any], refused: frozenset[str] = frozenset()) -> list[str]:
    """`refused`: benchmark files' studies refused already, left out of `config`: their names are no problem."""
    if not plan.enabled_studies(config) and not refused:
        return ["config studies: no study is enabled; set enabled: true on at least one"]
    return [*_local_dirs(config), *_baseline(config), *_sides(config, refused), *_packages(config),
            *_xla_flags(config), *_side_env(config), *_cache_dir(config), *_history(config, refused)]
