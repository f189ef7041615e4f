"""A benchmark file read from its syntax tree, so the Snakefile's parse checks it without JAX. Its vocabulary
(docs/your-own-code.md): `setup(<axes>)`, `VARIANTS = {"name": builder}`; optional `FLOOR`, `FIRST_RUN`, `EXPECT`,
`TOLERANCE`, `OUTPUTS_DIFFER`, `SAME_OUTPUTS_AS`, `RECOMPILES`."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..contract.naming import PLAN_KEYS
from .expectations import FIRST_RUN_MODE, Expectation, parse_expectation

# What the plan adds to a configuration, and the result tables' own columns beside its values: an axis of one of
# these names would be dropped from setup's call or overwrite a column.
RESERVED = (*PLAN_KEYS, "config_id", "variant", "baseline", "mode", "process", "demonstration", "study", "capture",
            "component", "backend", "device_kind", "processes", "settings", "code")  # the rest: aggregate refuses
NO_DEFAULT = object()  # an axis setup takes without a literal default: the config must give it


class BenchFileRefused(ValueError):
    """A benchmark file that cannot be timed as written; `readable`: its expectations that read all the same."""

    def __init__(self, message: str, readable: tuple = ()) -> None:
        super().__init__(message)
        self.readable = readable


@dataclass(frozen=True)
class Axis:
    """One parameter of `setup`: its name and literal default (NO_DEFAULT where none, or not a literal)."""

    name: str
    default: Any = NO_DEFAULT

    @property
    def required(self) -> bool:
        return self.default is NO_DEFAULT


@dataclass(frozen=True)
class BenchFile:
    """What a benchmark file declares (`open_axes`: setup takes **kwargs; `tolerance` default: float32 rounding)."""

    path: Path
    doc: str
    axes: tuple[Axis, ...]
    variants: dict[str, str]
    floor: str
    expectations: tuple[Expectation, ...] = ()
    rtol: float = 1e-4
    atol: float = 1e-5
    outputs_differ: dict[str, str] = field(default_factory=dict)
    open_axes: bool = False
    first_run: bool = False
    recompiles: dict[str, str] = field(default_factory=dict)  # variant -> why it compiles in every call
    same_outputs_as: dict[str, str] = field(default_factory=dict)  # variant -> the one its outputs equal, not the floor


def _refuse(path: Path, node: ast.AST | None, what: str) -> BenchFileRefused:
    line = f":{node.lineno}" if node is not None and hasattr(node, "lineno") else ""
    return BenchFileRefused(f"{path}{line}: {what}")


def _assignments(tree: ast.Module) -> dict[str, ast.expr]:
    """Module-level `NAME = value` (the last wins, as at import)."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            found[node.targets[0].id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            found[node.target.id] = node.value
    return found


def _defined(tree: ast.Module) -> set[str]:
    """Every name the module binds at its top level."""
    names = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
    return names


def _setup_axes(path: Path, tree: ast.Module) -> tuple[tuple[Axis, ...], bool]:
    setups = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "setup"]
    if not setups:
        imported = next((n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)
                         and "setup" in {a.asname or a.name for a in n.names}), None)
        said = (" (it imports one: the file is read, not run, to know its axes, so define setup in it, calling the "
                "imported one if need be)") if imported else ""
        raise _refuse(path, imported, "defines no setup(<axes>): the function that builds the variants' inputs from "
                                      f"one configuration's values (e.g. def setup(width, batch): ...){said}")
    args = setups[-1].args
    if args.posonlyargs or args.vararg:
        raise _refuse(path, setups[-1], "setup's axes are passed by name: no positional-only or *args parameters")
    positional = args.args
    defaults = [NO_DEFAULT] * (len(positional) - len(args.defaults)) + list(args.defaults)
    pairs = list(zip(positional, defaults, strict=True)) + list(zip(args.kwonlyargs, args.kw_defaults, strict=True))
    axes = []
    for arg, default in pairs:
        if arg.arg in RESERVED:
            raise _refuse(path, arg, f"setup's axis {arg.arg!r} has a name the workflow uses itself: rename it "
                                     f"(reserved: {', '.join(RESERVED)})")
        try:
            value = NO_DEFAULT if default in (NO_DEFAULT, None) else ast.literal_eval(default)
        except (ValueError, TypeError):  # not a literal (jnp.float32): setup's own default, the config may override
            value = NO_DEFAULT
        axes.append(Axis(arg.arg, value))
    return tuple(axes), args.kwarg is not None


def _literal(path: Path, name: str, node: ast.expr | None, default: Any, kind: type | tuple) -> Any:
    if node is None:
        return default
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError):
        raise _refuse(path, node, f"{name} must be a literal (the parse reads it without running the file)") from None
    kinds = kind if isinstance(kind, tuple) else (kind,)
    if not isinstance(value, kinds):
        wanted = " or ".join(k.__name__ for k in kinds)
        raise _refuse(path, node, f"{name} must be a {wanted}, not {type(value).__name__}")
    return value


def _variants(path: Path, tree: ast.Module, node: ast.expr | None) -> tuple[dict[str, str], list[str]]:
    """The variants by name (a builder's function name), and each entry's problem: the names stand for the checks
    after them where a builder is wrong."""
    if node is None:
        raise _refuse(path, None, 'defines no VARIANTS: name each variant and the function that builds its call, '
                                  'e.g. VARIANTS = {"jit": jit, "eager": eager}')
    if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) and isinstance(k.value, str)
                                          for k in node.keys):
        pairs = [(k.value, v) for k, v in zip(node.keys, node.values, strict=True)]
    elif isinstance(node, ast.List | ast.Tuple):
        pairs = [(v.id if isinstance(v, ast.Name) else "", v) for v in node.elts]
    else:
        raise _refuse(path, node, "VARIANTS must be a dict of name -> function, or a list of functions, written out "
                                  "(the file is read without running it: a comprehension or a call is not read)")
    defined, variants, problems = _defined(tree), {}, []
    for name, value in pairs:
        builder = value.id if isinstance(value, ast.Name) else ""
        if not builder:
            problems.append(str(_refuse(path, value, f"variant {name or ast.unparse(value)!r}: name a function of "
                                                     "the file (def it, then list it), not an expression")))
            if not name:
                continue
        if not name.isidentifier() or name in variants:
            problems.append(str(_refuse(path, value, f"variant {name!r}: a variant's name is an identifier, and "
                                                     "unique")))
            continue
        variants[name] = builder
        if not builder:
            continue
        if builder not in defined:
            problems.append(str(_refuse(path, value, f"variant {name!r}: {builder!r} is not defined in the file")))
        elif builder in list(variants.values())[:-1]:
            other = next(n for n, f in variants.items() if f == builder)
            problems.append(str(_refuse(path, value, f"variant {name!r}: {builder!r} builds {other!r} already (one "
                                                     "builder under two names times the same code)")))
    if len(variants) < 2:
        few = [] if len(pairs) > 1 else [str(_refuse(path, node, f"VARIANTS names {len(pairs)} variant(s): a "
                                                                 "benchmark compares at least two"))]
        raise BenchFileRefused("\n".join([*problems, *few]))
    return variants, problems


def _expectations(path: Path, node: ast.expr | None, variants: dict[str, str], first_run: bool | None,
                  axes: tuple[str, ...] | None) -> tuple[Expectation, ...]:
    """EXPECT's sentences (`axes`: setup's parameters an `at` may name; None: any)."""
    lines = _literal(path, "EXPECT", node, [], (list, tuple))
    found, problems, readable = [], [], []  # every sentence's problem at once, a line each
    for i, line in enumerate(lines):
        at, before = node.elts[i] if isinstance(node, ast.List | ast.Tuple) else node, len(problems)
        if not isinstance(line, str):
            problems.append(str(_refuse(path, at, f"EXPECT holds sentences, not {line!r}")))
            continue
        try:
            found.append(parse_expectation(line, tuple(variants)))
        except ValueError as e:
            problems.append(str(_refuse(path, at, f"EXPECT {line!r}: {e}")))
            continue
        if found[-1].at and axes is not None and found[-1].at[0] not in axes:
            problems.append(str(_refuse(path, at, f"EXPECT {line!r}: {found[-1].at[0]!r} is not a parameter of "
                                                  f"setup ({', '.join(axes) or 'it takes none'})")))
        if found[-1].mode == FIRST_RUN_MODE and first_run is False:  # None: FIRST_RUN refused already
            said = "compiling is" if found[-1].compiling else "first runs are"
            problems.append(str(_refuse(path, at, f"EXPECT {line!r}: {said} timed only where a file sets "
                                                  "FIRST_RUN = True, which this one does not")))
        if len(problems) == before:  # a sentence with no problem of its own: the config check judges its `at`
            readable.append(found[-1])
    if problems:
        raise BenchFileRefused("\n".join(problems), tuple(readable))
    keys = [e.key for e in found]
    if len(set(keys)) < len(keys):
        raise _refuse(path, node, "EXPECT states one expectation twice")
    return tuple(found)


def setup_of(path: Path) -> tuple[tuple[Axis, ...], bool] | None:
    """setup's (axes, open_axes) where they read, whatever else the file gets wrong: its config block is checked
    beside the file's other problems."""
    try:
        return _setup_axes(path, ast.parse(path.read_text(), str(path)))
    except (OSError, SyntaxError, ValueError):
        return None


def read(path: str | Path) -> BenchFile:
    """The benchmark file at `path`, or BenchFileRefused naming the file, the line and what to change."""
    path = Path(path)
    try:
        source = path.read_text()
    except OSError as e:
        raise BenchFileRefused(f"{path}: cannot be read ({e.strerror})") from None
    try:
        tree = ast.parse(source, str(path))
    except SyntaxError as e:
        raise BenchFileRefused(f"{path}:{e.lineno}: not valid Python: {e.msg}") from None
    assigned = _assignments(tree)
    axes, open_axes = _setup_axes(path, tree)
    variants, problems = _variants(path, tree, assigned.get("VARIANTS"))  # the rest read on: every problem at once
    floor = _attempt(problems, lambda: _floor(path, assigned.get("FLOOR"), variants))
    tolerance = _attempt(problems, lambda: _tolerance(path, assigned.get("TOLERANCE"))) or {}
    differ = _attempt(problems, lambda: _why(path, "OUTPUTS_DIFFER", assigned.get("OUTPUTS_DIFFER"), variants, floor,
                                             "its output differs")) or {}
    same = _attempt(problems, lambda: _same_outputs(path, assigned.get("SAME_OUTPUTS_AS"), variants, floor,
                                                    differ)) or {}
    recompiles = _attempt(problems, lambda: _why(path, "RECOMPILES", assigned.get("RECOMPILES"), variants, floor,
                                                 "it compiles in every call")) or {}
    first_run = _attempt(problems, lambda: _literal(path, "FIRST_RUN", assigned.get("FIRST_RUN"), False, bool))
    names = None if open_axes else tuple(a.name for a in axes)
    try:
        expectations = _expectations(path, assigned.get("EXPECT"), variants, first_run, names)
    except BenchFileRefused as e:
        problems.append(str(e))
        expectations = e.readable
    if problems:
        raise BenchFileRefused("\n".join(problems), expectations)
    return BenchFile(path=path.resolve(), doc=ast.get_docstring(tree) or "", axes=axes, variants=variants,
                     floor=floor, expectations=expectations, rtol=float(tolerance.get("rtol", BenchFile.rtol)),
                     atol=float(tolerance.get("atol", BenchFile.atol)), outputs_differ=differ, open_axes=open_axes,
                     first_run=bool(first_run), recompiles=recompiles, same_outputs_as=same)


def _attempt(problems: list[str], read: Callable[[], Any]) -> Any:
    """What `read` reads, or None with its refusal added to `problems`."""
    try:
        return read()
    except BenchFileRefused as e:
        problems.append(str(e))
        return None


def _floor(path: Path, node: ast.expr | None, variants: dict[str, str]) -> str:
    floor = _literal(path, "FLOOR", node, next(iter(variants)), str)
    if floor not in variants:
        raise _refuse(path, node, f"FLOOR {floor!r} is not one of the variants {list(variants)}")
    return floor


def _tolerance(path: Path, node: ast.expr | None) -> dict[str, float]:
    tolerance = _literal(path, "TOLERANCE", node, {}, dict)
    if set(tolerance) - {"rtol", "atol"} or not all(isinstance(v, int | float) and v >= 0 for v in tolerance.values()):
        raise _refuse(path, node, f"TOLERANCE takes rtol and atol, numbers of at least 0, not {tolerance}")
    return tolerance


def _why(path: Path, name: str, node: ast.expr | None, variants: dict[str, str], floor: str | None,
         what: str) -> dict[str, str]:
    """A dict of variant -> why (OUTPUTS_DIFFER, RECOMPILES), none the floor where FLOOR was read (None: refused
    already): every other variant is compared with the floor's outputs and its warm calls."""
    found = _literal(path, name, node, {}, dict)
    for variant, why in found.items():
        if variant not in variants or variant == floor or not isinstance(why, str) or not why:
            raise _refuse(path, node, f"{name} {variant!r}: name a variant other than the floor, and say why {what}")
    return found


def _same_outputs(path: Path, node: ast.expr | None, variants: dict[str, str], floor: str | None,
                  differ: dict[str, str]) -> dict[str, str]:
    """SAME_OUTPUTS_AS: variant -> the variant whose outputs its own must equal, in place of the floor's (a file of
    two questions: a loop read each step against one read at the end, beside the floor's single call)."""
    found = _literal(path, "SAME_OUTPUTS_AS", node, {}, dict)
    for variant, other in found.items():
        if not isinstance(other, str) or variant not in variants or other not in variants or variant in (other, floor):
            raise _refuse(path, node, f"SAME_OUTPUTS_AS {variant!r}: {other!r}: name a variant other than the floor "
                                      "and the variant whose outputs its own must equal")
        if other == floor or variant in differ or other in found:  # every reference is the floor's or says why
            raise _refuse(path, node, f"SAME_OUTPUTS_AS {variant!r}: name it here or in OUTPUTS_DIFFER, not both, "
                                      "and here only against the floor's or an OUTPUTS_DIFFER variant's outputs")
    return found
