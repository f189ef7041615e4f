"""The package declares what it needs: pyproject's dependencies are the workflow's runtime pins (requirements.txt
with envs/common.txt, which make installs), the tests' tools apart in envs/test.txt, and one console script."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PIN = re.compile(r"^([\w.-]+)==([\w.+]+)", re.MULTILINE)


def pins(path: Path) -> dict[str, str]:
    """A requirements file's pins, following its `-r` includes."""
    text = path.read_text()
    found = dict(PIN.findall(text))
    for included in re.findall(r"^-r (\S+)", text, flags=re.MULTILINE):
        found |= pins(path.parent / included)
    return found


def test_the_package_declares_the_workflows_runtime_pins():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = dict(PIN.findall("\n".join(project["dependencies"])))
    assert declared == pins(ROOT / "requirements.txt")
    assert not set(declared) & set(pins(ROOT / "envs/test.txt")), "test tools belong in envs/test.txt"
    assert project["scripts"] == {"jaxpitfalls": "jaxpitfalls.cli:main"}
