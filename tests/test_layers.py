"""The package's floors: every import goes down (or stays on its floor), never up, and no function is longer
than a screen. Read from the import statements (nothing is imported), as sources.py does for the rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "jaxpitfalls"

# Bottom to top, each folder on exactly one floor. The contract (what a study implements and the rest reads:
# spec and claim types, settings, Judged and the verdict names, the registry that imports the studies by name)
# sits below the plan and the report; the report's helpers below the studies that judge with them; the jobs
# that run a study on top.
FLOORS = (
    ("jaxpitfalls", "jaxpitfalls.results", "jaxpitfalls.breakdown", "jaxpitfalls.runtime", "jaxpitfalls.sources"),
    ("jaxpitfalls.harness", "jaxpitfalls.data", "jaxpitfalls.models"),
    ("jaxpitfalls.contract",),
    ("jaxpitfalls.plan", "jaxpitfalls.kinds", "jaxpitfalls.releases", "jaxpitfalls.traces", "jaxpitfalls.configcheck"),
    ("jaxpitfalls.report",),
    ("jaxpitfalls.studies",),
    ("jaxpitfalls.study_job", "jaxpitfalls.study_worker", "jaxpitfalls.lockstep_job", "jaxpitfalls.lockstep_worker",
     "jaxpitfalls.release_env"),
)
LONGEST_FUNCTION = 60


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def floor(module: str) -> int:
    """The floor of a module: its own name's, else its closest enclosing folder's (never the package's own,
    which holds only its top-level modules, each listed)."""
    name = module
    while True:
        for level, names in enumerate(FLOORS):
            if name in names:
                return level
        name = name.rpartition(".")[0]
        if name in ("", "jaxpitfalls"):
            raise KeyError(f"{module} is on no floor: add it or its folder to FLOORS")


def imports(module: str) -> set[str]:
    """The package's modules `module` imports (`from . import x` resolved to the module x where it is one)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            target = ".".join([*base, *([node.module] if node.module else [])])
            found |= {f"{target}.{a.name}" if f"{target}.{a.name}" in MODULES else target for a in node.names}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return {m for m in found if m in MODULES and m != module}


def test_every_module_is_on_a_floor():
    assert [floor(m) for m in MODULES]


@pytest.mark.parametrize("module", list(MODULES))
def test_imports_go_down_never_up(module):
    up = sorted(m for m in imports(module) if floor(m) > floor(module))
    assert not up, f"{module} (floor {floor(module)}) imports from above: {[(m, floor(m)) for m in up]}"


def test_no_function_is_longer_than_a_screen():
    long = [f"{_module(p)}.{node.name}: {node.end_lineno - node.lineno + 1} lines" for p in MODULES.values()
            for node in ast.walk(ast.parse(p.read_text()))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION]
    assert not long, long
