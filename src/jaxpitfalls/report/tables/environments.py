"""Which environment differences matter: results from other versions, backends, devices, CPUs or XLA flags are
never mixed in one table."""

from __future__ import annotations

from typing import Any

COMPARABLE = ("python", "packages", "backend", "device_kind", "device_count", "cpu_model", "xla_flags")


class IncomparableResults(ValueError):
    """Results measured in different environments would be mixed in one table."""


def require_comparable(docs: list[dict[str, Any]], paths: list[str]) -> None:
    """Every result of a study was measured in the same environment (versions, backend, device, CPU, flags)."""
    reference = {k: docs[0]["environment"][k] for k in COMPARABLE}
    for doc, path in zip(docs[1:], paths[1:], strict=True):
        differs = [k for k in COMPARABLE if doc["environment"][k] != reference[k]]
        if differs:
            raise IncomparableResults(
                f"{path} was measured in another environment than {paths[0]} ({', '.join(differs)} differ); "
                "rerun the study (snakemake -R run_study) so its results can be compared"
            )


# Columns of the tables that hold identifiers, read back as text: a short commit of digits alone ("9099972")
# came back from the checks table as a number, and the report's code line failed `make all` on it.
TEXT_COLUMNS = {"code": str, "git_commit": str, "config_id": str}


def code_parts(environment: dict[str, Any]) -> tuple[str, str]:
    """The workflow's code (short commit, `+dirty`) and a user's own study's (`<digest>`, `@<commit>` where a
    benchmark file is clean at a commit of its repository, `+dirty` where git saw it or a neighbour edited)."""
    git, own = environment.get("git") or {}, environment.get("study_code")
    at = (own or {}).get("git") or {}
    study = own["sha256"][:7] + (f"@{at['commit'][:7]}" if at.get("commit") and not at.get("dirty")
                                 else "+dirty" if at.get("dirty") else "") if own else ""
    workflow = git["commit"][:7] + ("+dirty" if git.get("dirty") else "") if git.get("commit") else "unknown"
    return workflow, study


def code_version(environment: dict[str, Any]) -> str:
    """The code of a result in one word: the workflow's, `+study:` a user's own study's (code_parts)."""
    workflow, study = code_parts(environment)
    return workflow + (f"+study:{study}" if study else "")


def flat_environment(env: dict[str, Any]) -> dict[str, Any]:
    """One flat row of the environment (packages and git state as columns), as environment.csv holds it."""
    flat = {k: v for k, v in env.items() if not isinstance(v, dict)}
    flat |= env["packages"]
    flat |= {f"git_{k}": v for k, v in env["git"].items()}
    flat |= {k: v for k, v in env.get("placement", {}).items() if k != "host"}  # older results have none
    own = env.get("study_code") or {}  # a user's own study, or benchmark file (with its repository's commit)
    flat |= {f"study_code_{k}": v for k, v in own.items() if not isinstance(v, dict)}
    flat |= {f"study_code_git_{k}": v for k, v in (own.get("git") or {}).items()}
    flat |= env.get("allocator", {})  # XLA's device memory settings (older results have none)
    return flat
