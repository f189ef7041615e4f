"""The package's floors: one folder, one floor; every import goes down (or stays on its floor), never up; no
loop among a floor's modules; no function longer than a screen, no module longer than one purpose. Read from
the import statements (nothing of the package runs but sources.py, whose reader the rules' inputs come from
too)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from jaxpitfalls import sources

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "jaxpitfalls"

# Bottom to top, each folder on exactly one floor. The contract (what a study implements and what it calls:
# spec and claim types, settings, verdicts, the judging engine and its rules, table and figure helpers, naming)
# sits right below the studies; the registry that imports the studies by name right above them; the plan, the
# config check and the report read the studies through it; the tools that read more than one run (comparison,
# history, calibration, the published reference) above the one run's report; the jobs that run a study on top.
FLOORS = (
    ("jaxpitfalls", "jaxpitfalls.results", "jaxpitfalls.breakdown", "jaxpitfalls.runtime", "jaxpitfalls.sources",
     "jaxpitfalls.formatting", "jaxpitfalls.idle_scheduler", "jaxpitfalls.pins", "jaxpitfalls.slurm_nodes"),
    ("jaxpitfalls.harness", "jaxpitfalls.data", "jaxpitfalls.models"),
    ("jaxpitfalls.contract",),
    ("jaxpitfalls.studies", "jaxpitfalls.benchfile"),
    ("jaxpitfalls.registry",),
    ("jaxpitfalls.plan", "jaxpitfalls.failed_jobs", "jaxpitfalls.failed_overlay", "jaxpitfalls.kinds",
     "jaxpitfalls.revisions", "jaxpitfalls.traces", "jaxpitfalls.configcheck"),
    ("jaxpitfalls.report",),
    ("jaxpitfalls.across_runs",),
    ("jaxpitfalls.jobs", "jaxpitfalls.cli"),
)
LONGEST_FUNCTION = 60
LONGEST_MODULE = 300  # lines: one purpose a reader holds in mind at once


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(PACKAGE.rglob("*.py"))}
# Every folder below the package's own: a package, with all its modules at any depth.
FOLDERS = sorted(_module(p.parent / "__init__.py") for p in PACKAGE.rglob("__init__.py") if p.parent != PACKAGE)


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


STUDIES = "jaxpitfalls.studies"
REGISTRY = "jaxpitfalls.registry"
# The registry imports every study's modules by name (importlib), which no import statement shows.
LOADED_BY_NAME = {REGISTRY: {m for m in MODULES if m.startswith(f"{STUDIES}.")}}


def imports(module: str) -> set[str]:
    """The package's modules `module` imports at run time: its import statements' (sources.imported_by: `from P
    import x` counts P and P.x) and, for the registry, the studies it loads by name."""
    return (set(sources.imported_by(module)) | LOADED_BY_NAME.get(module, set())) & set(MODULES)


def test_the_reader_reads_this_checkout():
    assert sources.ROOT == PACKAGE, f"jaxpitfalls imports from {sources.ROOT}, not {PACKAGE}: set PYTHONPATH=src"


def test_every_module_is_on_a_floor():
    assert [floor(m) for m in MODULES]


@pytest.mark.parametrize("folder", FOLDERS)
def test_a_folder_is_on_one_floor(folder):
    on = {m: floor(m) for m in MODULES if m == folder or m.startswith(f"{folder}.")}
    assert len(set(on.values())) == 1, f"{folder} spans floors: {on}"


@pytest.mark.parametrize("module", list(MODULES))
def test_imports_go_down_never_up(module):
    up = sorted(m for m in imports(module) if floor(m) > floor(module))
    assert not up, f"{module} (floor {floor(module)}) imports from above: {[(m, floor(m)) for m in up]}"


def _loops(edges: dict[str, set[str]]) -> list[list[str]]:
    """The import loops of a graph: its strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    loops = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(edges[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while not component or component[-1] != node:
                component.append(stack.pop())
            if len(component) > 1:
                loops.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return loops


def test_no_import_loop_among_a_floors_modules():
    same_floor = {m: {n for n in imports(m) if floor(n) == floor(m)} for m in MODULES}
    assert not _loops(same_floor)


def test_no_import_loop_at_run_time():
    """Across floors too, the registry's loads by name included: a study that imported the report would close
    a loop through the registry that the import statements alone do not show."""
    assert not _loops({m: imports(m) for m in MODULES})


@pytest.mark.parametrize("module", [m for m in MODULES if m != REGISTRY and not m.startswith(STUDIES)])
def test_only_the_registry_imports_a_study(module):
    """The plan, the config check, the report and the jobs read a study through the registry, so a study
    found elsewhere (a user's own folder) reads the same as a packaged one."""
    direct = sorted(m for m in imports(module) if m == STUDIES or m.startswith(f"{STUDIES}."))
    assert not direct, f"{module} imports {direct}: read a study through jaxpitfalls.registry"


def test_a_loop_is_found():
    assert _loops({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert not _loops({"a": {"b"}, "b": set()})


def test_no_function_is_longer_than_a_screen():
    long = [f"{_module(p)}.{node.name}: {node.end_lineno - node.lineno + 1} lines" for p in MODULES.values()
            for node in ast.walk(ast.parse(p.read_text()))
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno - node.lineno + 1 > LONGEST_FUNCTION]
    assert not long, long


def test_no_module_is_longer_than_one_purpose():
    long = [f"{name}: {n} lines" for name, path in MODULES.items()
            if (n := len(path.read_text().splitlines())) > LONGEST_MODULE]
    assert not long, long


def _folder_of(module: str) -> str:
    """The innermost folder (package) that holds `module`."""
    return max((f for f in FOLDERS if module == f or module.startswith(f"{f}.")), key=len, default="jaxpitfalls")


def test_no_two_folders_import_each_other():
    """A folder that imports another which imports it back is one thing in two places: merge or split them."""
    edges = {(_folder_of(m), _folder_of(n)) for m in MODULES for n in imports(m)}
    both = sorted((a, b) for a, b in edges if a < b and (b, a) in edges
                  and not (b.startswith(f"{a}.") or a.startswith(f"{b}.")))
    assert not both, both


@pytest.mark.parametrize("floor_name", ["report", "across_runs"])
def test_a_floor_is_one_folder_per_feature(floor_name):
    """report/ (one run's tables, scorecard and figures) holds feature folders only, none of more modules than
    a reader holds apart at once; across_runs/ too, beside its settings and its releases."""
    top = PACKAGE / floor_name
    loose = [p.name for p in top.glob("*.py") if p.name not in ("__init__.py", "settings.py", "releases.py")]
    sizes = {d.name: len([p for p in d.glob("*.py") if p.name != "__init__.py"]) for d in top.iterdir()
             if (d / "__init__.py").is_file()}
    assert not loose, f"modules of no feature in {floor_name}/: {loose}"
    assert max(sizes.values()) <= 10, sizes


def test_the_report_renders_one_run():
    """What renders one run's tables stays small enough to read in a sitting; tools that read several runs
    belong to across_runs/."""
    lines = sum(len(p.read_text().splitlines()) for p in (PACKAGE / "report").rglob("*.py"))
    assert lines <= 2500, f"report/ is {lines} lines"


def test_the_development_page_names_every_module_and_folder_on_a_floor():
    """Its layout missed `benchfile/`, `cli.py` and five top-level modules: a newcomer read it as the whole list."""
    page = (PACKAGE.parents[1] / "docs" / "development.md").read_text()
    named = [name.removeprefix("jaxpitfalls.") for names in FLOORS for name in names if name != "jaxpitfalls"]
    assert [n for n in named if f"`{n}.py`" not in page and f"`{n}/" not in page] == []
