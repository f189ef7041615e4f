"""The tests that need what pip cannot install (Debian's chromium and Slurm, root to start a cluster) say what
they need and how to get it where it is missing, and skip; where `make test` could install it
(JAXPITFALLS_ALL_TIERS, set by the Makefile on a Debian machine with root or sudo, as CI is) a missing tool
fails instead, so nothing is skipped unseen where it counts."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REQUIRED = "JAXPITFALLS_ALL_TIERS"
SYSTEM_FOLDERS = ("/usr/sbin", "/sbin")


def missing_tools(tools: tuple[str, ...]) -> list[str]:
    """The tools not found on PATH or in the system folders a non-root PATH may leave out (/usr/sbin)."""
    return [t for t in tools if shutil.which(t) is None and not any(Path(d, t).is_file() for d in SYSTEM_FOLDERS)]


def can_be_root() -> bool:
    """Root, or sudo without a password (what starting the test cluster needs)."""
    if os.geteuid() == 0:
        return True
    sudo = shutil.which("sudo")
    return sudo is not None and subprocess.run([sudo, "-n", "true"], capture_output=True).returncode == 0


def need(tier: str, tools: tuple[str, ...], how: str, root: bool = False) -> None:
    """Skip (or, where every tier is required, fail) the tests of `tier` whose tools are missing, naming them and
    `how` to get them; called at a test module's top, before any fixture (a smoke run) is built for nothing."""
    missing = missing_tools(tools)
    if root and not missing and not can_be_root():  # sudo asked only where the tools are there to start
        missing = ["root or passwordless sudo"]
    if not missing:
        return
    said = f"the {tier} tests need {', '.join(missing)}: {how}"
    if os.environ.get(REQUIRED):
        pytest.fail(f"{said} ({REQUIRED} is set: `make test` could install them here)")
    pytest.skip(said, allow_module_level=True)
