"""One venv per library release for the release history, holding only what a timing job imports (this checkout's
code via PYTHONPATH). A release that fails to install or import is recorded, never raised, so the history never
reads a missing release as a change."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..results import write_text

# What a timing job imports (the dispatch study's training step, the model files): imported once built.
IMPORTS = ("jax", "jaxlib", "equinox", "optax", "numpy", "safetensors")
TAIL = 12  # lines of a failed command's output kept in the status


def _tail(text: str) -> str:
    return "\n".join(text.strip().splitlines()[-TAIL:])


def _run(cmd: list[str]) -> tuple[bool, str]:
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return proc.returncode == 0, _tail(proc.stdout + proc.stderr)


def _import_step(python: Path | str, package: str, also: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """Import what a timing job imports with `python` (`also`: a benchmark file's own imports); print installed
    versions as JSON."""
    recorded = list(dict.fromkeys([*IMPORTS, package]))
    imported = dict.fromkeys([*(p for p in IMPORTS if p != "jaxlib"), *also])
    return ("import", [str(python), "-c", "import json, importlib.metadata as m; import " + ", ".join(imported)
                       + f"; print(json.dumps({{p: m.version(p) for p in {recorded!r}}}))"])


def _of_release(status: dict[str, Any], package: str, release: str) -> dict[str, Any]:
    """The status, refused where the environment holds another release of `package` than asked for."""
    found = status.get("versions", {}).get(package, release)
    if found == release:
        return status
    return {**status, "ok": False, "reason": f"{package} {found} installed, not {release}"}


def _status(python: Path | str, lines: list[str], steps: list[tuple[str, list[str]]]) -> dict[str, Any]:
    """Run `steps` in order; the status says which failed, or the versions the last printed."""
    for name, cmd in steps:
        ok, output = _run(cmd)
        if not ok:
            return {"ok": False, "python": str(python), "requirements": lines, "reason": f"{name} failed: {output}"}
    return {"ok": True, "python": str(python), "requirements": lines, "versions": json.loads(output.splitlines()[-1])}


def build(env_dir: Path, lines: list[str], package: str, release: str, also: tuple[str, ...] = ()) -> dict[str, Any]:
    """Make the venv, install `lines`, import what a timing job imports (and `also`); the status."""
    python = env_dir / "bin" / "python"
    return _of_release(_status(python, lines, [
        ("venv", [sys.executable, "-m", "venv", "--clear", str(env_dir)]),
        ("pip install", [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *lines]),
        _import_step(python, package, also),
    ]), package, release)


def existing(python: str, package: str, release: str, also: tuple[str, ...] = ()) -> dict[str, Any]:
    """The status of an environment the user made (config `history.pythons`): checked, not built."""
    return _of_release(_status(python, [], [_import_step(python, package, also)]), package, release)


def write_json(path: str, status: dict[str, Any]) -> None:
    """A status or a result as JSON, written whole."""

    write_text(path, json.dumps(status, indent=1))
