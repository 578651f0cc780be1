"""The README's Dagster commands work as written: the versions its `pip install` names are the ones
this environment is pinned to (requirements-test.txt) and fit pyproject.toml, and its `dagster dev`
starts the webserver on the example project, which lists the example's assets.

The webserver listens on 127.0.0.1 (a free port) with a throw-away DAGSTER_HOME (telemetry off);
every wait is bounded.
"""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from packaging.requirements import Requirement

PACKAGE = Path(__file__).resolve().parents[1]
REPOSITORY = PACKAGE.parents[1]
README = REPOSITORY / "README.md"
STARTUP_SECONDS = 240


def readme_dagster_block() -> list[str]:
    """The commands of the README's "## Dagster" bash block, continuation lines joined."""
    section = README.read_text().split("\n## Dagster\n", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    return [line.strip() for line in block.replace("\\\n", " ").splitlines() if line.strip()]


def pinned() -> dict[str, str]:
    pins = {}
    for line in (PACKAGE / "requirements-test.txt").read_text().splitlines():
        if line and not line.startswith("#"):
            name, version = line.split("==")
            pins[name.lower()] = version
    return pins


def test_the_readme_installs_the_pinned_dagster_pair():
    [install] = [c for c in readme_dagster_block() if c.startswith("pip install")]
    named = {}
    for word in shlex.split(install)[2:]:
        if word.startswith("./"):
            continue
        requirement = Requirement(word)
        [specifier] = list(requirement.specifier)
        assert specifier.operator == "==", word
        named[requirement.name.lower()] = specifier.version
    assert "dagster-webserver" in named, install
    pins = pinned()
    for name, version in named.items():
        assert pins.get(name) == version, (name, version, pins.get(name))
    # The webserver requires exactly its own dagster version; the package must allow it.
    assert named["dagster-webserver"] == pins["dagster"]
    dependencies = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]["dependencies"]
    [dagster] = [Requirement(d) for d in dependencies if Requirement(d).name == "dagster"]
    assert pins["dagster"] in dagster.specifier, (dagster, pins["dagster"])


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ASSETS_QUERY = "{ assetNodes { assetKey { path } } }"


def asset_keys(port: int) -> set[str] | None:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/graphql", data=json.dumps({"query": ASSETS_QUERY}).encode(),
        headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            body = json.load(response)
    except (urllib.error.URLError, ConnectionError, TimeoutError, json.JSONDecodeError):
        return None
    nodes = (body.get("data") or {}).get("assetNodes") or []
    return {"/".join(node["assetKey"]["path"]) for node in nodes} or None


# About 20 s on 2 cores: the full tier only (scripts/test.sh).
@pytest.mark.slow
def test_dagster_dev_from_the_readme_lists_the_example_assets(example_project, strata_bin,
                                                              tmp_path):
    [dev] = [c for c in readme_dagster_block() if " dagster dev " in f" {c} "]
    words = shlex.split(dev)
    # The README's environment assignments, pointed at this test's binary and project copy.
    assignments = [w for w in words if re.fullmatch(r"[A-Z_]+=.*", w)]
    assert [a.split("=")[0] for a in assignments] == ["STRATA_BIN", "STRATA_PROJECT_DIR"], dev
    command = words[len(assignments):]
    assert command[:2] == ["dagster", "dev"], dev
    home = tmp_path / "dagster_home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    env = {**os.environ, "STRATA_BIN": strata_bin, "STRATA_PROJECT_DIR": str(example_project),
           "DAGSTER_HOME": str(home)}
    port = free_port()
    # The `dagster` of this interpreter's environment (the one the README's pip install fills).
    dagster = str(Path(sys.executable).parent / "dagster")
    argv = [dagster, *command[1:], "--host", "127.0.0.1", "--port", str(port)]
    log = (tmp_path / "dagster_dev.log").open("w")
    process = subprocess.Popen(argv, cwd=REPOSITORY, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        keys = None
        deadline = time.monotonic() + STARTUP_SECONDS
        while keys is None and time.monotonic() < deadline:
            assert process.poll() is None, (tmp_path / "dagster_dev.log").read_text()
            time.sleep(1.0)
            keys = asset_keys(port)
        assert keys is not None, (tmp_path / "dagster_dev.log").read_text()[-4000:]
        assert {"raw/orders", "warehouse/marts/fct_daily_orders"} <= keys, keys
    finally:
        # Ctrl-C, as a user stops it (dagster dev then stops its code server), then whatever of
        # its process group is left.
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                pass
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
        log.close()
