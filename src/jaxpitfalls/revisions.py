"""Your code at two revisions: a lockstep side with a `revision` times the benchmark file as at that git
revision, as `asv continuous` does, from a `git archive` of it (the repository untouched); all else is the run's.
"""

from __future__ import annotations

import json
import subprocess
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from . import registry, sources
from .benchfile import reader
from .results import write_dir_atomically

CHECKOUTS = "results/revisions"


class RevisionRefused(ValueError):
    """A revision side that cannot be checked out; the message says why."""


def _git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RevisionRefused(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"git {args[0]} failed")
    return done.stdout.strip()


def repository(study: str) -> Path:
    """The git repository that holds the study's benchmark file."""
    if not registry.is_file(study):
        raise RevisionRefused(f"study {study!r} is not a benchmark file: a revision side times a file of your own "
                              "repository (studies.<name>.file)")
    folder = registry.where(study).parent
    try:
        return Path(_git(folder, "rev-parse", "--show-toplevel"))
    except (RevisionRefused, FileNotFoundError) as e:
        raise RevisionRefused(f"{registry.where(study)} is not in a git repository ({e})") from None


def in_repository(study: str) -> str:
    """The benchmark file's path inside its repository."""
    return registry.where(study).resolve().relative_to(repository(study).resolve()).as_posix()


def commit(study: str, revision: str) -> str:
    """The commit `revision` names in the file's repository, where the file exists."""
    repo = repository(study)
    try:
        sha = _git(repo, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
    except RevisionRefused:
        names = _git(repo, "for-each-ref", "--format=%(refname:short)", "refs/heads", "refs/tags").split()
        raise RevisionRefused(f"{revision!r} is not a revision of {repo} (its branches and tags: "
                              f"{', '.join(names[:10]) or 'none'}{', ...' if len(names) > 10 else ''})") from None
    if not _exists(repo, sha, in_repository(study)):
        raise RevisionRefused(f"{in_repository(study)} does not exist at {revision!r} ({sha[:12]}) of {repo}")
    missing = _neighbours_missing(study, repo, sha)
    if missing:
        raise RevisionRefused(f"{missing}, which {in_repository(study)} imports from beside it, is at {revision!r} "
                              f"({sha[:12]}) of {repo} neither a module nor a package: commit it, or time another "
                              "revision")
    return sha


def _exists(repo: Path, sha: str, path: str) -> bool:
    try:
        _git(repo, "cat-file", "-e", f"{sha}:{path}")
    except RevisionRefused:
        return False
    return True


def _neighbours_missing(study: str, repo: Path, sha: str) -> str:
    """A module the file at `sha` imports from beside it here that the commit lacks ("" if none)."""
    here, there = registry.where(study).parent, Path(in_repository(study)).parent
    try:
        tops = sources.imported_tops(_git(repo, "show", f"{sha}:{in_repository(study)}"), in_repository(study))
    except SyntaxError:  # the revision's file is refused as it is read
        return ""
    for top in sorted(tops):  # here a module or a package, there either form will do (a refactor between them)
        if sources.neighbour(here, top) and not any(_exists(repo, sha, (there / name).as_posix())
                                                    for name in (f"{top}.py", top)):
            return (there / top).as_posix()
    return ""


def checkout(study: str, sha: str, out_dir: str | Path) -> None:
    """The tree of commit `sha` of the file's repository, in `out_dir`, whole or not at all."""
    repo = repository(study)

    def fill(tmp: str) -> None:
        with tempfile.TemporaryFile() as archive:
            subprocess.run(["git", "-C", str(repo), "archive", "--format=tar", sha], stdout=archive, check=True)
            archive.seek(0)
            with tarfile.open(fileobj=archive) as tar:
                tar.extractall(tmp, filter="data")

    write_dir_atomically(out_dir, fill)


def checkout_dir(side: str) -> str:
    return f"{CHECKOUTS}/{side}"


def side_env(study: str, side: str, sha: str, env: dict[str, Any]) -> dict[str, str]:
    """A revision side's variables: its own, the benchmark file at its checkout and the commit (the checkout
    has no git)."""
    found = sources.benchmark_files() | {study: Path(checkout_dir(side)).resolve() / in_repository(study)}
    return dict(env) | {sources.BENCHMARK_FILES: json.dumps({name: str(path) for name, path in found.items()}),
                        sources.BENCHMARK_COMMITS: json.dumps(sources.benchmark_commits() | {study: sha})}


def same_variants(study: str, sha: str) -> None:
    """Refuse a revision whose benchmark file names other variants than the file as it is: their rows
    could not be paired."""
    with tempfile.TemporaryDirectory() as tmp:
        there = Path(tmp) / Path(in_repository(study)).name
        there.write_text(_git(repository(study), "show", f"{sha}:{in_repository(study)}"))
        try:
            then = reader.read(there).variants
        except reader.BenchFileRefused as e:
            raise RevisionRefused(f"its {in_repository(study)} cannot be timed: {e}") from None
    now = reader.read(registry.where(study)).variants
    if list(then) != list(now):
        raise RevisionRefused(f"its {in_repository(study)} names the variants {list(then)}, the file as it is "
                              f"{list(now)}: a side's rows are paired with the first side's by variant")
