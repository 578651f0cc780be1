"""Fixtures of the tests against a real Trino 476 (issue 41).

One coordinator for the whole session, started by scripts/trino_test_server.sh into a fresh
folder under /tmp and stopped at the end; it serves the catalogs `iceberg` and `hive` (file
metastores on the local disk) and `memory`. scripts/test.sh runs this folder after ctest and the
end-to-end tests (the full tier only), never beside them: Trino takes a core of its own while it
plans. A missing Trino download or Java 24+ fails the session with the script's message; nothing
here skips.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from trino_project import TrinoProject

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "trino_test_server.sh"


@pytest.fixture(scope="session")
def trino_url():
    folder = tempfile.mkdtemp(prefix="strata-trino-")
    started = subprocess.run(["bash", str(SCRIPT), "start", folder], capture_output=True, text=True,
                             timeout=900)
    if started.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        pytest.fail(f"Trino did not start:\n{started.stderr[-4000:]}", pytrace=False)
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run(["bash", str(SCRIPT), "stop", folder], capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def build_dir() -> Path:
    strata = os.environ.get("STRATA_BIN")
    if not strata:
        pytest.fail("STRATA_BIN is not set (scripts/test.sh sets it)", pytrace=False)
    return Path(strata).resolve().parents[2]


@pytest.fixture(scope="session")
def strata_bin(build_dir) -> str:
    return os.environ.get("STRATA_BIN") or str(build_dir / "src" / "cli" / "strata")


@pytest.fixture
def iceberg(trino_url, strata_bin, tmp_path):
    return TrinoProject(tmp_path / "iceberg", trino_url, "iceberg", strata_bin)


@pytest.fixture
def hive(trino_url, strata_bin, tmp_path):
    return TrinoProject(tmp_path / "hive", trino_url, "hive", strata_bin)
