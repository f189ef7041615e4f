"""The study registry: every package with a `spec.py` in `studies/` or the user's `study_folders`, and every
benchmark file, is a study. Parts are imported by name when asked for, so everything above reads a study through
here alone and nothing below imports one."""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import os
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from . import sources
from .benchfile import reader
from .benchfile import spec as benchfile_spec
from .contract.interface import Lockstep, Measure, Report, StudySpec

FOLDER = Path(__file__).parent / "studies"
PACKAGE = sources.STUDIES  # what every study is imported as, by name (the plugins), wherever its folder lies


class StudyRefused(ValueError):
    """A study folder or study that cannot be used as given; the message names the path and why."""


def _study_folder(where: Path) -> bool:
    """Whether a folder is a study (has a spec.py); refuses one not importable by its name."""
    if not (where / "spec.py").is_file():
        return False
    if not where.name.isidentifier():
        raise StudyRefused(f"{where}: a study's folder name is its import name: letters, digits and _ only")
    if not (where / "__init__.py").is_file():
        raise StudyRefused(f"{where} has a spec.py but no __init__.py: add one (its docstring describes the "
                           "study in the report)")
    return True


@cache
def _found(folders: tuple[Path, ...]) -> dict[str, Path]:
    """Each study's folder by name; two of one name are refused (which is imported would depend on order)."""
    found: dict[str, Path] = {}
    for folder in folders:
        for where in sorted(p for p in folder.iterdir() if p.is_dir() and _study_folder(p)):
            if where.name in found:
                raise StudyRefused(f"{where}: a study named {where.name!r} is already at {found[where.name]}: "
                                   "rename the folder (the folder's name is the study's)")
            found[where.name] = where
    return found


def _studies() -> dict[str, Path]:
    return _found((FOLDER, *(f.resolve() for f in sources.study_folders())))


def use_folders(paths: Iterable[str | Path]) -> None:
    """Add the user's study folders (each holding study folders, as studies/ does) for this process and its
    children; refuses a folder missing or holding no study, or a taken name; all or nothing."""
    folders = list(dict.fromkeys(Path(p).expanduser().resolve() for p in paths))
    for folder in folders:
        if not folder.is_dir():
            raise StudyRefused(f"{folder}: no such folder (a relative path is read from {Path.cwd()}; "
                               "an absolute one or ~ does not depend on --directory)")
        if not _found((folder,)):
            raise StudyRefused(f"{folder} holds no study: a study is a subfolder with a spec.py "
                               "(docs/adding-a-study.md)")
    _found((FOLDER, *folders))  # refuses a clash before anything changes
    os.environ[sources.STUDY_FOLDERS] = os.pathsep.join(str(f) for f in folders)
    package = importlib.import_module(PACKAGE)
    package.__path__[:] = [str(FOLDER), *(str(f) for f in folders)]


def file_problems(files: Mapping[str, str | Path]) -> dict[str, list[str]]:
    """Each benchmark file's problems (a line each) by study name; none where it reads."""
    folders, problems = _studies(), {}
    for name, path in {name: Path(path).expanduser().resolve() for name, path in files.items()}.items():
        if name in folders:
            problems[name] = [f"studies.{name}.file: a study named {name!r} is already at {folders[name]}: give "
                              "the benchmark another name"]
        elif not path.is_file():
            problems[name] = [f"studies.{name}.file: {path}: no such file (a relative path is read from "
                              f"{Path.cwd()})"]
        else:
            try:
                reader.read(path)
                sources.neighbours(path)
            except reader.BenchFileRefused as e:
                problems[name] = [f"studies.{name}.file: {line}" for line in str(e).splitlines()]
            except SyntaxError as e:  # a module beside it that it imports
                problems[name] = [f"studies.{name}.file: {e.filename}:{e.lineno}: not valid Python ({path.name} "
                                  f"imports it): {e.msg}"]
    return problems


def use_files(files: Mapping[str, str | Path]) -> None:
    """Add the user's benchmark files by name, as `use_folders` does folders (every file's problems at once)."""
    problems = file_problems(files)
    if problems:
        raise StudyRefused("\n".join(line for lines in problems.values() for line in lines))
    found = {name: str(Path(path).expanduser().resolve()) for name, path in files.items()}
    os.environ[sources.BENCHMARK_FILES] = json.dumps(found)


def names() -> tuple[str, ...]:
    """Every study's name, sorted (a config uses its own order)."""
    return tuple(sorted({*_studies(), *sources.benchmark_files()}))


def where(name: str) -> Path:
    """A study's folder, or its benchmark file."""
    known = _studies() | sources.benchmark_files()
    if name not in known:
        raise KeyError(f"unknown study {name!r}; known: {', '.join(sorted(known))}")
    return known[name]


def is_file(name: str) -> bool:
    """Whether the study is a benchmark file (benchfile/), not a folder."""
    return name in sources.benchmark_files()


def part_sources(name: str, part: str, *more: str) -> tuple[str, ...]:
    """The source files a rule using the study's `part` (measure, spec, report, claims) and `more` depends on."""
    if is_file(name):
        module = {"claims": "judges"}.get(part, part)
        # only a worker imports the file, and with it its neighbours (the file itself is its `measured_code`); the
        # other parts read the file as text
        files = sources.neighbours(where(name)) if part == "measure" else {where(name)}
        return tuple(sorted({*sources.files_of(f"benchfile.{module}", *more), *map(sources.as_input, files)}))
    return sources.files_of(f"studies.{name}.{part}", *more)


def measured_code(name: str) -> str:
    """benchfile.spec.measured_code of a file's study; "" for a folder's (its files are inputs)."""
    return benchfile_spec.measured_code(name, where(name)) if is_file(name) else ""


def _part(name: str, part: str):
    folder = where(name)
    package = importlib.import_module(PACKAGE)
    if str(folder.parent) not in package.__path__:  # a process started with the folders in its environment
        package.__path__.append(str(folder.parent))
    try:
        return importlib.import_module(".".join(filter(None, [PACKAGE, name, part])))
    except Exception as e:  # a user's study whose module fails to import: say which file, and why
        raise StudyRefused(f"{folder / (part or '__init__')}.py cannot be imported: {type(e).__name__}: {e}") from e


def spec(name: str) -> StudySpec:
    """The study's JAX-free spec (`SPEC` in its spec.py, or built from its benchmark file)."""
    if is_file(name):
        return benchfile_spec.spec(name, where(name))
    found = getattr(_part(name, "spec"), "SPEC", None)
    if not isinstance(found, StudySpec) or found.name != name:
        raise StudyRefused(f"{where(name) / 'spec.py'} must define SPEC = StudySpec(name={name!r}, ...) "
                           "(contract/interface.py)")
    return found


def _implementing(name: str, part: str, protocol: type):
    module = _part(name, part)
    if not isinstance(module, protocol):
        missing = [m for m in _members(protocol) if not hasattr(module, m)]
        raise StudyRefused(f"{where(name) / part}.py does not implement {protocol.__name__}: lacks {missing}")
    return module


def _members(protocol: type) -> list[str]:
    return [*protocol.__annotations__, *(k for k, v in vars(protocol).items() if callable(v) and not k.startswith("_"))]


def report_lacks(name: str) -> list[str]:
    """What a study folder's report.py leaves out of Report, from its syntax tree (seaborn unimported)."""
    path = where(name) / "report.py"
    try:
        tree = ast.parse(path.read_text(), str(path))
    except (OSError, SyntaxError) as e:  # as _part says a module that does not import
        raise StudyRefused(f"{path} cannot be read: {type(e).__name__}: {e}") from e
    defined = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            defined |= {(a.asname or a.name).split(".")[0] for a in node.names}
        else:  # an assignment, annotated or not, of one name or several
            targets = getattr(node, "targets", None) or [getattr(node, "target", None)]
            defined |= {n.id for t in targets if t is not None for n in ast.walk(t) if isinstance(n, ast.Name)}
    return [m for m in _members(Report) if m not in defined]


def _file_measure(name: str):
    from .benchfile.measure import Measure as FileMeasure  # imports JAX

    return FileMeasure(name, where(name))


def measure(name: str) -> Measure:
    """The study's measuring code (imports JAX)."""
    return _file_measure(name) if is_file(name) else _implementing(name, "measure", Measure)


def lockstep(name: str) -> Lockstep:
    """The study's measuring code for a lockstep comparison (imports JAX); refused without `samplers`."""
    return _file_measure(name) if is_file(name) else _implementing(name, "measure", Lockstep)


def report(name: str) -> Report:
    """The study's report code (JAX-free)."""
    if is_file(name):
        from .benchfile.report import Report as FileReport  # pandas, seaborn: not at the Snakefile's parse

        bench = reader.read(where(name))
        return FileReport(spec(name), bench.outputs_differ, bench.recompiles, bench.same_outputs_as)
    return _implementing(name, "report", Report)


def judges(name: str):
    """The study's judged claims (`JUDGES` in its claims.py: JAX-free)."""
    if is_file(name):
        from .benchfile.judges import judges as file_judges  # pandas: not at the Snakefile's parse

        return file_judges(name, where(name))
    found = getattr(_part(name, "claims"), "JUDGES", None)
    if found is None or getattr(found, "spec", None) is not spec(name):
        raise StudyRefused(f"{where(name) / 'claims.py'} must define JUDGES = Judges(SPEC) (contract.judging)")
    return found


def description(name: str) -> str:
    """The study's package (or benchmark file's) docstring, which the report shows."""
    if is_file(name):
        return reader.read(where(name)).doc
    return inspect.getdoc(_part(name, "")) or ""


INPUTS = ("model", "data", "anchor_model")


def inputs(named) -> dict[str, str]:
    """A measuring job's input directories (INPUTS) by name, from Snakemake's named input list."""
    return {name: str(path) for name, path in named.items() if name in INPUTS}
