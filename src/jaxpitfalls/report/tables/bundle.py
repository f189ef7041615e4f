"""A results bundle: a run's files in one archive with a sha256 manifest, refused on opening if any file is
missing, added or changed."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any

from ...results import write_atomically

MANIFEST = "manifest.json"


class InvalidBundle(ValueError):
    """A bundle that is corrupted, incomplete, or not a bundle."""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def make(files: list[str], out_path: str, config: dict[str, Any], environment: dict[str, Any]) -> dict:
    """Write `out_path` (.tar.gz) holding `files` (paths relative to the working directory) and a manifest."""
    contents = {f: Path(f).read_bytes() for f in sorted(set(files))}
    manifest = {"files": {f: _sha256(data) for f, data in contents.items()}, "config": config,
                "environment": environment, "git": environment.get("git")}

    def write(tmp: str) -> None:
        with tarfile.open(tmp, "w:gz") as tar:
            for name, data in [(MANIFEST, json.dumps(manifest, indent=1).encode()), *contents.items()]:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))

    write_atomically(out_path, write)
    return manifest


def extract(bundle: str | Path, out_dir: str | Path) -> dict:
    """Unpack a bundle into `out_dir` after checking every file against the manifest; returns the manifest."""
    try:
        with tarfile.open(bundle, "r:gz") as tar:
            members = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    except (tarfile.TarError, OSError, EOFError) as e:
        raise InvalidBundle(f"{bundle}: not a readable bundle archive ({e})") from None
    if MANIFEST not in members:
        raise InvalidBundle(f"{bundle}: no {MANIFEST}: not a results bundle")
    manifest = json.loads(members.pop(MANIFEST))
    expected = manifest["files"]
    missing = sorted(set(expected) - set(members))
    extra = sorted(set(members) - set(expected))
    changed = sorted(f for f in set(expected) & set(members) if _sha256(members[f]) != expected[f])
    for problem, names in (("missing", missing), ("not in the manifest", extra), ("changed (sha256)", changed)):
        if names:
            raise InvalidBundle(f"{bundle}: incomplete or corrupted: {problem}: {', '.join(names[:5])}")
    out = Path(out_dir)
    for name, data in members.items():
        target = (out / name).resolve()
        if out.resolve() not in target.parents:
            raise InvalidBundle(f"{bundle}: {name} would be written outside the bundle's directory")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return manifest
