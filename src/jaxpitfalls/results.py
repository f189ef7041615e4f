"""Reading and writing results: atomically (a failed job never leaves half a file), schema-checked."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

_UMASK = os.umask(0)
os.umask(_UMASK)
SCHEMA = Path(__file__).resolve().parents[2] / "workflow" / "schemas" / "result.schema.json"


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
    """Call `fill(tmp_dir)` on a fresh directory beside `path`, then put it in place of `path` whole: a
    failed job leaves neither half a directory nor a mix of two runs' files (models, traces)."""
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


def write_result(path: str | os.PathLike, doc: dict[str, Any]) -> None:
    validate(doc, str(path))
    write_text(path, json.dumps(doc, indent=1, sort_keys=True) + "\n")


def read_result(path: str | os.PathLike) -> dict[str, Any]:
    doc = json.loads(Path(path).read_text())
    validate(doc, str(path))
    return doc
