"""config.yaml and the presets as the Snakefile reads them (a preset merged over config.yaml key by key, as
`--configfile` does; validated, defaults filled in), and the overlays the workflow tests run on the smoke
preset (tests/test_kinds.py counts what they run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from jaxpitfalls.configcheck.schema import fill_defaults, load, schema_problems

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = load(ROOT / "workflow" / "schemas" / "config.schema.yaml")
# the smoke preset's XLA flags: every test compiles with them (tests/conftest.py), as its workflow runs do
SMOKE_XLA_FLAGS = yaml.safe_load((ROOT / "presets" / "smoke.yaml").read_text())["xla_flags"]

# tests/test_workflow_smoke.py's timing job beside busy processes: dispatch re-timing contended rounds
RETRYING = {"studies": {"dispatch": {"measure": {"processes": 1, "on_contention": "retry", "max_wait_s": 3}}}}


def validate(config: dict) -> dict:
    """The schema's part of the Snakefile's check: no violation, then the defaults filled in."""
    assert schema_problems(config, SCHEMA)[0] == []
    fill_defaults(config, SCHEMA)
    return config


def config_with(*overlays: str | dict) -> dict:
    """config.yaml with each overlay (a preset's path from the checkout's root, or a dict) merged over it in
    turn, validated."""
    from snakemake.utils import update_config

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    for overlay in overlays:
        update_config(config, yaml.safe_load((ROOT / overlay).read_text()) if isinstance(overlay, str) else overlay)
    return validate(config)


def dry_run(directory: Path, configfiles: list[str | Path], *targets: str) -> subprocess.CompletedProcess:
    """`snakemake -n` of this checkout's workflow in `directory` on `configfiles` (paths from the checkout's root, or
    absolute), importing this checkout."""
    cmd = [str(Path(sys.executable).parent / "snakemake"), "-s", str(ROOT / "Snakefile"), "-n", *targets,
           "--directory", str(directory), "--configfile", *(str(ROOT / f) for f in configfiles)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))


def smoke_result(study: str, base: bool = True) -> str:
    """The path of the smoke preset's result of the study's base configuration (or of its first other one),
    relative to the run's directory."""
    from jaxpitfalls import plan

    confs = plan.configurations(config_with("presets/smoke.yaml")["studies"][study])
    return f"results/runs/{study}/{(confs[0] if base else confs[1])['id']}.json"
