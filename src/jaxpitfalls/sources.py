"""The source files a module depends on, so a rule reruns when exactly those change (Snakemake tracks a
`script:` but not its imports). Read from import statements, nothing executed, so the Snakefile is fast.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

PACKAGE = "jaxpitfalls"
ROOT = Path(__file__).resolve().parent
STUDIES = f"{PACKAGE}.studies"
# The user's own study folders (the config's `study_folders`, registry.use_folders), os.pathsep-separated, in
# the environment: every process of a run (the Snakefile's, its jobs', their workers', a release's interpreter)
# inherits them, so each finds the same studies. Their studies are imported as `jaxpitfalls.studies.<name>`.
STUDY_FOLDERS = "JAXPITFALLS_STUDY_FOLDERS"
# The user's benchmark files (a study block's `file`, registry.use_files), as JSON {name: absolute path}, inherited
# the same way.
BENCHMARK_FILES = "JAXPITFALLS_BENCHMARK_FILES"
# The commit each benchmark file was checked out at, where a revision side runs it from a checkout without git
# (revisions.side_env): JSON {name: commit}.
BENCHMARK_COMMITS = "JAXPITFALLS_BENCHMARK_COMMITS"


def study_folders() -> tuple[Path, ...]:
    """The user's study folders this process was given."""
    return tuple(Path(p) for p in os.environ.get(STUDY_FOLDERS, "").split(os.pathsep) if p)


def benchmark_files() -> dict[str, Path]:
    """The user's benchmark files this process was given, by name."""
    return {name: Path(path) for name, path in json.loads(os.environ.get(BENCHMARK_FILES) or "{}").items()}


def benchmark_commits() -> dict[str, str]:
    """The commit of each benchmark file this process runs from a revision's checkout."""
    return json.loads(os.environ.get(BENCHMARK_COMMITS) or "{}")


Roots = tuple[tuple[Path, str], ...]


def _roots() -> Roots:
    """Where modules lie, by the name they are imported under: the package, then the user's study folders."""
    return ((ROOT, PACKAGE), *((folder.resolve(), STUDIES) for folder in study_folders()))


def _module_file(module: str, roots: Roots) -> Path | None:
    for root, prefix in roots:
        if module.startswith(f"{prefix}.") or (module == prefix and root == ROOT):
            rel = Path(*module[len(prefix):].split(".")[1:])
            for candidate in (root / rel / "__init__.py", (root / rel).with_suffix(".py")):
                if candidate.is_file():
                    return candidate
    return None


def _module_name(path: Path, roots: Roots) -> str:
    # the deepest root holding the file: a user's folder may hold the checkout itself
    root, prefix = max(((r, p) for r, p in roots if path.is_relative_to(r)), key=lambda rp: len(rp[0].parts))
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((prefix, *parts))


# Modules whose functions import a study's parts when asked (lazily): a rule names the parts it uses itself
# (registry.part_sources), so a rule's inputs follow only their imports at module level. Otherwise every timing
# job would depend on the claims' rules, the figures and the benchmark files' report through the registry.
DISPATCHERS = (f"{PACKAGE}.registry",)


def _statements(tree: ast.AST, lazy: bool) -> Iterator[ast.AST]:
    """Every node of `tree`, or (not `lazy`) those outside function bodies."""
    for node in ast.iter_child_nodes(tree):
        yield node
        if lazy or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            yield from _statements(node, lazy)


def _imported(nodes: Iterator[ast.AST], package: str) -> frozenset[str]:
    """Package modules the import statements among `nodes` name, relative ones read from `package` (`from P
    import name`: P, and P.name if a module)."""
    found = set()
    for node in nodes:
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


@cache
def _imports(path: Path, roots: Roots, lazy: bool = True) -> frozenset[str]:
    """Package modules imported by a file, absolute or relative, at any depth (`lazy`: in functions too)."""
    this = _module_name(path, roots)
    package = this if path.name == "__init__.py" else this.rpartition(".")[0]
    return _imported(_statements(ast.parse(path.read_text(), str(path)), lazy), package)


@cache
def script_modules(script: str) -> tuple[str, ...]:
    """The package modules a rule's script imports, where its rule's sources start."""
    roots = _roots()
    found = _imported(ast.walk(ast.parse(Path(script).read_text(), script)), PACKAGE)  # a script imports absolutely
    return tuple(sorted(m for m in found if _module_file(m, roots) is not None))


def imported_by(module: str) -> frozenset[str]:
    """The package modules `module` (full name) imports itself, lazy ones included (`from P import name`:
    P, and P.name if a module)."""
    roots = _roots()
    path = _module_file(module, roots)
    if path is None:
        raise KeyError(f"{module}: no module of {PACKAGE} under {ROOT}")
    return frozenset(m for m in _imports(path, roots) if m != module and _module_file(m, roots) is not None)


def files_of(*modules: str) -> tuple[str, ...]:
    """Sorted source files of `modules` and every package module they import, as rule inputs; a module named
    here that does not exist is refused (a rule naming a moved module would otherwise lose its inputs)."""
    roots = _roots()
    missing = [m for m in modules if _module_file(_full(m), roots) is None]
    if missing:
        raise KeyError(f"no module {', '.join(missing)} of {PACKAGE}: a rule names a module that moved or is gone")
    return tuple(sorted(as_input(p) for p in _files_of(modules, roots)))


def _full(module: str) -> str:
    return module if module.startswith(PACKAGE) else f"{PACKAGE}.{module}"


@cache
def _files_of(modules: tuple[str, ...], roots: Roots) -> frozenset[Path]:
    seen: set[Path] = set()
    todo = [_full(m) for m in modules]
    while todo:
        path = _module_file(todo.pop(), roots)
        if path is None or path in seen:
            continue
        seen.add(path)
        module = _module_name(path, roots)
        todo.extend(_imports(path, roots, lazy=module not in DISPATCHERS))
        while "." in module:  # importing a module runs its packages' __init__ (and what those import)
            module = module.rpartition(".")[0]
            todo.append(module)
    return frozenset(seen)


def imported_tops(source: str | bytes, filename: str) -> frozenset[str]:
    """The top-level names a module's absolute imports name, at any depth (bytes: its coding line honoured)."""
    names: list[str] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
    return frozenset(name.split(".")[0] for name in names)


@cache
def _file_tops(path: Path, stamp: tuple[int, int]) -> frozenset[str]:
    return imported_tops(path.read_bytes(), str(path))  # parsed once a version (stamp: mtime, size) per process


def _tops(path: Path) -> frozenset[str]:
    stat = path.stat()
    return _file_tops(path, (stat.st_mtime_ns, stat.st_size))


def neighbour(folder: Path, top: str) -> Path | None:
    """What `import top` finds beside a file in `folder` (first on its workers' path): a module, or a package
    (a folder without __init__.py only where nothing installed has the name: else that is what imports)."""
    if (folder / f"{top}.py").is_file():
        return folder / f"{top}.py"
    if (folder / top / "__init__.py").is_file() or ((folder / top).is_dir() and importlib.util.find_spec(top) is None):
        return folder / top
    return None


def neighbours(path: Path) -> frozenset[Path]:
    """The modules beside a user's benchmark file that it imports, at any depth: editing one reruns its jobs. A
    neighbour package counts whole; an installed one is no input."""
    seen: set[Path] = set()
    todo = [path]
    while todo:
        module = todo.pop()
        for top in _tops(module):
            found = neighbour(path.parent, top)
            files = set(found.rglob("*.py")) if found and found.is_dir() else {found} if found else set()
            files = {f for f in files if f.is_file() and f != path} - seen
            seen |= files
            todo += files
    return frozenset(seen)


def installed_imports(path: Path) -> tuple[str, ...]:
    """What a benchmark file and its neighbours import from outside its folder: what its environment must hold."""
    tops = set()
    for module in (path, *neighbours(path)):
        tops |= {top for top in _tops(module) if not neighbour(path.parent, top)}
    return tuple(sorted(tops))


def as_input(path: Path) -> str:
    """A path relative to the working directory where it lies inside it: Snakemake keys an input's checksum by
    path, so a moved checkout run in place stays up to date (a `--directory` outside it does not)."""
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
