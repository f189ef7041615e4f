"""The package's source files a module really depends on, so a rule reruns when exactly those change.

Snakemake tracks a `script:` file but not the modules it imports; each rule lists these files as inputs.
Found by reading import statements (no import is executed, so the Snakefile stays fast).
"""

from __future__ import annotations

import ast
import os
from functools import cache
from pathlib import Path

PACKAGE = "jaxpitfalls"
ROOT = Path(__file__).resolve().parent
STUDIES = f"{PACKAGE}.studies"
# The user's own study folders (the config's `study_folders`, registry.use_folders), os.pathsep-separated, in
# the environment: every process of a run (the Snakefile's, its jobs', their workers', a release's interpreter)
# inherits them, so each finds the same studies. Their studies are imported as `jaxpitfalls.studies.<name>`.
STUDY_FOLDERS = "JAXPITFALLS_STUDY_FOLDERS"


def study_folders() -> tuple[Path, ...]:
    """The user's own study folders this process was given, beside the package's studies/."""
    return tuple(Path(p) for p in os.environ.get(STUDY_FOLDERS, "").split(os.pathsep) if p)


def _roots() -> list[tuple[Path, str]]:
    """Where modules lie, by the name they are imported under: the user's study folders, then the package."""
    return [*((folder.resolve(), STUDIES) for folder in study_folders()), (ROOT, PACKAGE)]


def _module_file(module: str) -> Path | None:
    for root, prefix in _roots():
        if module.startswith(f"{prefix}.") or (module == prefix and root == ROOT):
            rel = Path(*module[len(prefix):].split(".")[1:])
            for candidate in (root / rel / "__init__.py", (root / rel).with_suffix(".py")):
                if candidate.is_file():
                    return candidate
    return None


def _module_name(path: Path) -> str:
    root, prefix = next((r, p) for r, p in _roots() if path.is_relative_to(r))
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((prefix, *parts))


@cache
def _imports(path: Path) -> frozenset[str]:
    """Package modules imported by a file, absolute or relative, at any depth (lazy imports count)."""
    this = _module_name(path)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{base}.{node.module}" if node.module else base
            elif node.module and node.module.split(".")[0] == PACKAGE:
                base = node.module
            else:
                continue
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return frozenset(found)


def imported_by(module: str) -> frozenset[str]:
    """The package's modules that `module` (its full name) imports itself, lazy imports included: for
    `from P import name`, P (importing it runs P's __init__) and P.name where that is a module. `files_of`
    follows these to every file a rule depends on; tests/test_layers.py checks the package's floors on them."""
    path = _module_file(module)
    if path is None:
        raise KeyError(f"{module}: no module of {PACKAGE} under {ROOT}")
    return frozenset(m for m in _imports(path) if m != module and _module_file(m) is not None)


def files_of(*modules: str) -> tuple[str, ...]:
    """Sorted source files of the given modules and everything in the package they import, as rule inputs."""
    return tuple(sorted(_as_input(p) for p in _files_of(modules)))


@cache
def _files_of(modules: tuple[str, ...]) -> frozenset[Path]:
    seen: set[Path] = set()
    todo = [f"{PACKAGE}.{m}" if not m.startswith(PACKAGE) else m for m in modules]
    while todo:
        path = _module_file(todo.pop())
        if path is None or path in seen:
            continue
        seen.add(path)
        todo.extend(_imports(path))
        module = _module_name(path)
        while "." in module:  # importing a module runs its packages' __init__ (and what those import)
            module = module.rpartition(".")[0]
            todo.append(module)
    return frozenset(seen)


def _as_input(path: Path) -> str:
    """A path relative to the working directory where the package lies inside it: Snakemake keys what it
    recorded of an input (its checksum) by path, so a copied or moved workflow directory stays up to date."""
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
