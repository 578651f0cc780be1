"""What a new user meets on day one (issue 39, item 6): `strata --version` names the commit,
argument errors on a pipe are one JSON document, hints that name a command repeat the --project
given, and a query's human table prints numbers as a person reads them (JSON and CSV keep them
whole)."""
from __future__ import annotations

import csv
import io
import json
import os
import pty
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import jsonschema
import pytest

REPOSITORY = Path(__file__).resolve().parents[2]
WRITE_BUILD_INFO = REPOSITORY / "cmake" / "write_build_info.cmake"


def git(*args, cwd=REPOSITORY):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)


# ----- strata --version ----------------------------------------------------------------------

def test_version_names_the_commit_it_was_built_from(strata_bin):
    head = git("rev-parse", "HEAD")
    if shutil.which("git") is None or head.returncode != 0:
        pytest.skip("not a git checkout")
    completed = subprocess.run([strata_bin, "--version"], capture_output=True, text=True,
                               timeout=30)
    assert completed.returncode == 0, completed
    assert completed.stderr == ""
    # The binary under test is built from this checkout (scripts/build.sh, CI's fresh clone).
    assert re.fullmatch(r"strata \d+\.\d+\.\d+ \(commit [0-9a-f]{40}(-dirty)?\)\n",
                        completed.stdout), completed.stdout
    assert head.stdout.strip() in completed.stdout, (completed.stdout, head.stdout)


def write_build_info(source: Path, output: Path) -> str:
    completed = subprocess.run(
        ["cmake", f"-DSOURCE_DIR={source}", f"-DOUTPUT={output}", "-DVERSION=9.8.7", "-P",
         str(WRITE_BUILD_INFO)], capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, completed
    return output.read_text()


@pytest.mark.skipif(shutil.which("git") is None or shutil.which("cmake") is None,
                    reason="needs git and cmake")
def test_the_build_step_follows_each_commit_and_rewrites_only_on_change(tmp_path):
    """The step every build runs (an incremental one too): the commit of HEAD, `-dirty` while
    tracked files differ, the file untouched (so nothing recompiles) when nothing changed, and
    "unknown" outside a git checkout."""
    source, output = tmp_path / "checkout", tmp_path / "build_info.cc"
    source.mkdir()
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}

    def commit(text):
        (source / "file.txt").write_text(text)
        subprocess.run(["git", "add", "file.txt"], cwd=source, check=True, timeout=60)
        subprocess.run(["git", "commit", "-q", "-m", text], cwd=source, check=True, timeout=60,
                       env={**os.environ, **env})
        return git("rev-parse", "HEAD", cwd=source).stdout.strip()

    subprocess.run(["git", "init", "-q"], cwd=source, check=True, timeout=60)
    first = commit("one")
    text = write_build_info(source, output)
    assert f'"{first}"' in text and '"9.8.7"' in text, text
    stamp = output.stat().st_mtime_ns
    assert write_build_info(source, output) == text
    assert output.stat().st_mtime_ns == stamp, "rewritten without a change: needless recompile"
    second = commit("two")
    assert f'"{second}"' in write_build_info(source, output)
    (source / "file.txt").write_text("three")
    assert f'"{second}-dirty"' in write_build_info(source, output)
    outside = tmp_path / "not_a_checkout"
    outside.mkdir()
    assert '"unknown"' in write_build_info(outside, output)


# ----- argument errors -----------------------------------------------------------------------

USAGE_CASES = [
    ["run", "--bogus"],           # unknown flag
    ["show"],                     # missing argument
    ["run", "--lookback"],        # missing value
    ["query", "--nope"],
    ["schema", "no-such-schema"],
    [],                           # no command
]


@pytest.fixture(scope="module")
def errors_schema(strata_bin):
    completed = subprocess.run([strata_bin, "schema", "errors-output"], capture_output=True,
                               text=True, timeout=30)
    assert completed.returncode == 0, completed
    return json.loads(completed.stdout)


@pytest.mark.parametrize("args", USAGE_CASES, ids=[" ".join(a) or "none" for a in USAGE_CASES])
def test_usage_errors_on_a_pipe_are_one_json_document(project, errors_schema, args):
    completed = subprocess.run([project.bin, *args], capture_output=True, text=True, timeout=60,
                               cwd=project.root)
    assert completed.returncode == 1, completed
    assert completed.stderr == "", completed
    document = json.loads(completed.stdout)
    jsonschema.validate(document, errors_schema)
    assert [e["code"] for e in document["errors"]] == ["Usage"], document


def run_on_a_terminal(argv, cwd) -> tuple[int, str, str]:
    """Runs argv with stdout on a pseudo-terminal and stderr on a pipe."""
    controller, terminal = pty.openpty()
    try:
        process = subprocess.Popen(argv, stdout=terminal, stderr=subprocess.PIPE, text=True,
                                   cwd=cwd)
        os.close(terminal)
        terminal = -1
        _, err = process.communicate(timeout=60)
        out = b""
        while True:
            try:
                chunk = os.read(controller, 4096)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            out += chunk
        return process.returncode, out.decode(errors="replace"), err
    finally:
        os.close(controller)
        if terminal >= 0:
            os.close(terminal)


@pytest.mark.parametrize("args", [["run", "--bogus"], ["show"]], ids=["unknown flag", "missing"])
def test_usage_errors_on_a_terminal_stay_human(project, args):
    returncode, out, err = run_on_a_terminal([project.bin, *args], project.root)
    assert returncode == 1
    assert "error[Usage]" in err, err
    assert "{" not in out, out


def test_usage_errors_follow_an_explicit_human_output(project):
    completed = subprocess.run([project.bin, "run", "--bogus", "--output", "human"],
                               capture_output=True, text=True, timeout=60, cwd=project.root)
    assert completed.returncode == 1 and completed.stdout == ""
    assert "error[Usage]" in completed.stderr, completed


# ----- hints repeat --project ----------------------------------------------------------------

@pytest.fixture
def spaced(tmp_path, strata_bin):
    """A project in a folder whose name needs shell quoting, with one model never built."""
    from conftest import Project
    project = Project(tmp_path / "my shop", strata_bin)
    project.execute("CREATE SCHEMA raw", "CREATE TABLE raw.orders AS SELECT 1 AS order_id")
    project.add_model("orders_copy", "SELECT order_id FROM raw.orders\n")
    return project


def test_hints_that_name_a_command_repeat_the_project(spaced):
    quoted = f"'{spaced.root}'"
    applied = spaced.strata("apply", "0123456789abcdef")
    assert applied.returncode == 1, applied
    [error] = applied.json["errors"]
    assert f"`strata plan --project {quoted}`" in error["hint"], error
    shown = spaced.strata("show", "orders_copy")
    assert shown.returncode == 1, shown
    [error] = shown.json["errors"]
    assert f"`strata run --model orders_copy --project {quoted}`" in error["hint"], error
    # As text on stderr too.
    human = spaced.strata("apply", "0123456789abcdef", output="human")
    assert f"`strata plan --project {quoted}`" in human.stderr, human
    # Without --project (the current folder), the hint is as written.
    bare = subprocess.run([spaced.bin, "apply", "0123456789abcdef", "--output", "json"],
                          capture_output=True, text=True, timeout=60, cwd=spaced.root)
    assert "`strata plan`" in json.loads(bare.stdout)["errors"][0]["hint"], bare


# ----- numbers in the human table ------------------------------------------------------------

MODEL = """\
entities:
  - name: Order
    table: raw.orders
    primary_key: order_id
    dimensions:
      - { name: order_id, type: number }
      - { name: status, type: string }
    measures:
      - { name: order_count, agg: count }
      - { name: average_value, agg: avg, sql: amount }
      - { name: tiny, agg: sum, sql: small }
"""


@pytest.fixture
def shop(project):
    project.write("semantic/model.yml", MODEL)
    project.execute(
        "CREATE SCHEMA raw",
        "CREATE TABLE raw.orders (order_id INTEGER, status VARCHAR, amount DOUBLE, small DOUBLE)",
        "INSERT INTO raw.orders VALUES (1, 'paid', 100.0, 0.0001234567), "
        "(2, 'paid', 159.88611737044636, 0.0), (3, 'paid', 129.94305868522318, 0.0), "
        "(4, 'shipped', 1234567, 0.5)")
    return project


QUERY = {"measures": ["Order.order_count", "Order.average_value", "Order.tiny"],
         "dimensions": ["Order.status"], "order": [{"member": "Order.status"}]}


def test_the_human_table_rounds_numbers_json_and_csv_keep_them(shop):
    as_json = shop.strata("query", json.dumps(QUERY), output="json")
    assert as_json.returncode == 0, as_json
    rows = as_json.json["rows"]
    assert rows[0][0] == "paid" and rows[0][1] == 3
    # JSON keeps every digit the warehouse returned.
    assert rows[0][2] == pytest.approx(129.94305868522318, rel=1e-12)
    assert len(repr(rows[0][2])) > 15, rows
    assert rows[0][3] == pytest.approx(0.0001234567, rel=1e-12)
    table = shop.strata("query", json.dumps(QUERY), output="table")
    assert table.returncode == 0, table
    lines = table.stdout.splitlines()
    assert lines[2].split() == ["paid", "3", "129.9431", "0.0001235"], table.stdout
    assert lines[3].split() == ["shipped", "1", "1234567", "0.5"], table.stdout
    as_csv = shop.strata("query", json.dumps(QUERY), output="csv")
    assert as_csv.returncode == 0, as_csv
    parsed = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert float(parsed[1][2]) == rows[0][2] and float(parsed[1][3]) == rows[0][3], parsed


def test_cli_table_numbers_stay_exact_for_integers(shop):
    body = {"measures": ["Order.order_count"], "dimensions": ["Order.order_id"],
            "order": [{"member": "Order.order_id"}]}
    table = shop.strata("query", json.dumps(body), output="table")
    assert table.returncode == 0, table
    assert [line.split() for line in table.stdout.splitlines()[2:6]] == \
        [["1", "1"], ["2", "1"], ["3", "1"], ["4", "1"]], table.stdout
