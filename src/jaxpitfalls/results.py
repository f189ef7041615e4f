"""Reading and writing results: atomically (a failed job never leaves half a file), schema-checked."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

_UMASK = os.umask(0)
os.umask(_UMASK)
SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "result.schema.json"
# The result's format: raised when a field changes meaning or goes, so a reader can tell a result it cannot read
# from one it can. Results written before it carry none (format 0: the same fields as format 1).
FORMAT = 1


class InvalidResult(ValueError):
    """A result document does not follow workflow/schemas/result.schema.json."""


def write_atomically(path: str | os.PathLike, write) -> None:
    """Call `write(tmp_path)`, then move the finished file into place in one rename."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; results are for sharing
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_dir_atomically(path: str | os.PathLike, fill) -> None:
    """Call `fill(tmp_dir)` on a fresh directory beside `path`, then put it in place whole: never
    half a directory, nor a mix of two runs' files."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = tempfile.mkdtemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        fill(tmp)
        os.chmod(tmp, 0o777 & ~_UMASK)  # mkdtemp makes 0700; results are for sharing
        if path.exists():
            shutil.rmtree(path)
        os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def write_text(path: str | os.PathLike, text: str) -> None:
    write_atomically(path, lambda tmp: Path(tmp).write_text(text))


def write_csv(path: str | os.PathLike, table) -> None:
    """A pandas table as CSV, without its index, atomically."""
    write_atomically(path, lambda tmp: table.to_csv(tmp, index=False))


@cache
def _validator(schema_path: Path):
    import jsonschema

    schema = json.loads(schema_path.read_text())
    return jsonschema.Draft202012Validator(schema)


def validate(doc: dict[str, Any], where: str = "result", schema: Path = SCHEMA) -> None:
    errors = sorted(_validator(schema).iter_errors(doc), key=lambda e: list(e.absolute_path))
    if errors:
        first = errors[0]
        at = "/".join(str(p) for p in first.absolute_path) or "(top)"
        raise InvalidResult(f"{where}: {len(errors)} schema error(s); first at {at}: {first.message}")


def installed_version(package: str) -> str | None:
    """An installed package's version (None where it is not installed: this one run from a source tree)."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def package_version() -> str | None:
    return installed_version("jaxpitfalls")


def write_result(path: str | os.PathLike, doc: dict[str, Any]) -> dict[str, Any]:
    """A result stamped with its format and package version, checked, written atomically and returned."""
    doc = doc | {"format": {"result": FORMAT, "jaxpitfalls": package_version()}}
    validate(doc, str(path))
    write_text(path, json.dumps(doc, indent=1, sort_keys=True) + "\n")
    return doc


def read_result(path: str | os.PathLike) -> dict[str, Any]:
    """A result this checkout can read: one of a later format is refused with the versions named."""
    doc = require_format(json.loads(Path(path).read_text()), path)
    validate(doc, str(path))
    return doc


def require_format(doc: dict[str, Any], path: str | os.PathLike) -> dict[str, Any]:
    """`doc`, unless it is of a later format than this checkout reads: refused with the versions named."""
    stamp = doc.get("format", {})
    if isinstance(stamp, dict) and isinstance(stamp.get("result", 0), int) and stamp.get("result", 0) > FORMAT:
        raise InvalidResult(f"{path}: result format {stamp['result']} (written by jaxpitfalls "
                            f"{stamp.get('jaxpitfalls')}); this checkout ({package_version()}) reads formats up to "
                            f"{FORMAT}: run a newer checkout, or time it again with this one")
    return doc
