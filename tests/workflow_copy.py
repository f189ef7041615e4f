"""The real workflow in a temporary copy of the repository, run on the smoke preset.

The copy includes src/, imported through PYTHONPATH, so a test can edit or add a package file (a module, a
whole study) without touching the checkout.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COPY = ("Snakefile", "config.yaml", "presets", "profiles", "scripts", "src", "workflow", "envs", "examples",
        "requirements.txt")


def copy_workflow(workdir: Path) -> Path:
    for name in COPY:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, workdir / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, workdir / name)
    return workdir


def command(*args: str, overlay: Path | list[Path] | None = None) -> list[str]:
    """The venv's snakemake on the smoke preset (plus overlay configs, in order)."""
    overlays = overlay if isinstance(overlay, list) else [overlay] if overlay else []
    configfiles = ["presets/smoke.yaml", *map(str, overlays)]
    return [str(Path(sys.executable).parent / "snakemake"), "--configfile", *configfiles, *args]


def environment(workdir: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """`base` (this process's environment by default) importing the copy's package."""
    return dict(os.environ if base is None else base, PYTHONPATH=str(workdir / "src"))


def snakemake(workdir: Path, *args: str, overlay: Path | list[Path] | None = None, check: bool = True):
    """Snakemake on the smoke preset (plus an overlay config) in `workdir`, importing the package copy."""
    cmd = command(*args, overlay=overlay)
    proc = subprocess.run(cmd, cwd=workdir, env=environment(workdir), capture_output=True, text=True, timeout=900)
    if check and proc.returncode != 0:
        raise AssertionError(f"{' '.join(cmd)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def planned_rules(proc: subprocess.CompletedProcess) -> set[str]:
    """The rules a dry run (`-n`) would run, read from its table of job counts."""
    rules = set()
    for line in (proc.stdout + proc.stderr).splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit() and parts[0].isidentifier() and parts[0] not in ("job", "total"):
            rules.add(parts[0])
    return rules
