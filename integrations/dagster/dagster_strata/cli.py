"""Runs the `strata` binary and parses its JSON output into the generated models.

Every call passes `--output json` and `--project`; stdout is one JSON document (strata never mixes
human text into it), stderr carries warnings. Exit codes (spec/project.md): 0 success, 1 usage,
configuration or compile error (the document is {"errors": [...]}), 2 partial failure, 130
interrupted; run documents come back for 0, 1 (no partition's statements ran: every model refused
by the compiler or unable to create its table), 2 (some partition or model failed after running;
status partial_failure, or failure when nothing committed) and 130.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from dagster_strata.generated.models_output import ModelsOutput
from dagster_strata.generated.partitions_output import PartitionsOutput
from dagster_strata.generated.run_output import RunOutput


class StrataCommandError(Exception):
    """strata refused the command (exit 1 without a run document), or printed no JSON."""

    def __init__(self, args: Sequence[str], returncode: int, errors: list[dict], stderr: str):
        self.args_run = list(args)
        self.returncode = returncode
        self.errors = errors  # [{"code", "message", "hint"?, ...}] as strata printed them
        self.stderr = stderr
        first = errors[0] if errors else {"code": "Unknown", "message": stderr.strip()}
        super().__init__(f"`{' '.join(self.args_run)}` exited {returncode}: "
                         f"[{first.get('code')}] {first.get('message')}")

    @property
    def code(self) -> str:
        return str(self.errors[0].get("code")) if self.errors else "Unknown"


def find_strata_bin(strata_bin: str | None = None) -> str:
    """`strata_bin`, else $STRATA_BIN, else `strata` on PATH."""
    candidate = strata_bin or os.environ.get("STRATA_BIN") or shutil.which("strata")
    if not candidate:
        raise FileNotFoundError("no strata binary: pass strata_bin=, set STRATA_BIN, or put "
                                "`strata` on PATH")
    return str(candidate)


@dataclass(frozen=True)
class RunInvocation:
    """One `strata run`: the document it printed and how it exited."""

    args: list[str]
    returncode: int
    output: RunOutput
    stderr: str


class StrataCli:
    """The strata binary bound to one project (and optionally a named warehouse)."""

    def __init__(self, project_dir: str | os.PathLike, strata_bin: str | None = None,
                 warehouse: str | None = None, timeout: float | None = None):
        self.project_dir = str(Path(project_dir).resolve())
        self.strata_bin = find_strata_bin(strata_bin)
        self.warehouse = warehouse
        self.timeout = timeout

    def _invoke(self, command: str, *args: str) -> tuple[list[str], subprocess.CompletedProcess]:
        argv = [self.strata_bin, command, *args, "--project", self.project_dir, "--output", "json"]
        if self.warehouse:
            argv += ["--warehouse", self.warehouse]
        completed = subprocess.run(argv, capture_output=True, text=True, timeout=self.timeout)
        return argv, completed

    @staticmethod
    def _document(argv, completed) -> dict:
        try:
            document = json.loads(completed.stdout)
        except json.JSONDecodeError:
            raise StrataCommandError(argv, completed.returncode, [], completed.stderr) from None
        if not isinstance(document, dict):
            raise StrataCommandError(argv, completed.returncode, [], completed.stderr)
        return document

    def _read(self, command: str, *args: str) -> dict:
        argv, completed = self._invoke(command, *args)
        document = self._document(argv, completed)
        if completed.returncode != 0:
            raise StrataCommandError(argv, completed.returncode, document.get("errors", []),
                                     completed.stderr)
        return document

    def models(self) -> ModelsOutput:
        """`strata models --output json`."""
        return ModelsOutput.model_validate(self._read("models"))

    def partitions(self, model: str | None = None, status: str | None = None) -> PartitionsOutput:
        """`strata partitions [MODEL] [--status S] --output json`: the state store's ledger."""
        args = ([model] if model else []) + (["--status", status] if status else [])
        return PartitionsOutput.model_validate(self._read("partitions", *args))

    def run(self, model: str | None = None, *, partition: str | None = None,
            from_key: str | None = None, to_key: str | None = None,
            extra_args: Sequence[str] = ()) -> RunInvocation:
        """`strata run [--model M] [--partition K | --from A --to B] --output json`.

        Returns the run document for every exit that printed one (0, 1 with every partition
        failed, 2 partial failure, 130 interrupted); raises StrataCommandError when strata refused
        the command before running anything."""
        args: list[str] = []
        if model:
            args += ["--model", model]
        if partition is not None:
            args += ["--partition", partition]
        if from_key is not None or to_key is not None:
            args += ["--from", str(from_key), "--to", str(to_key)]
        args += list(extra_args)
        argv, completed = self._invoke("run", *args)
        document = self._document(argv, completed)
        if "run_id" not in document:
            raise StrataCommandError(argv, completed.returncode, document.get("errors", []),
                                     completed.stderr)
        return RunInvocation(argv, completed.returncode, RunOutput.model_validate(document),
                             completed.stderr)
