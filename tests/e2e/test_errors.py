"""Bad inputs: exit 1 (nothing runs) with a clear message carrying an error code."""
from __future__ import annotations

import re
import sqlite3

import pytest

from conftest import DAILY_SQL, mats_by_key, strategy_toml

HOURLY_SQL = """\
SELECT DATE_TRUNC('hour', order_at) AS order_hour, COUNT(*) AS order_count
FROM stg_orders
WHERE order_at >= @start_date AND order_at < @end_date
GROUP BY 1
"""

ROWS = [(1, 1, "1.00", "2026-04-06 10:00:00"), (2, 2, "2.00", "2026-04-07 10:00:00")]


@pytest.fixture
def two_models(project):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.add_model("fct_hourly", HOURLY_SQL, strategy_toml("hour", time_column="order_hour"))
    return project


def errors_of(result):
    """The errors of a refused command: the JSON document on stdout, or (for errors found while
    parsing arguments, before --output applies) the `error[Code]: message` lines on stderr."""
    if result.stdout.strip():
        return result.json["errors"]
    found = re.findall(r"^error\[(\w+)\]: (.*)$", result.stderr, re.M)
    assert found, repr(result)
    return [{"code": c, "message": m, "hint": result.stderr} for c, m in found]


def nothing_ran(project):
    state = project.root / "models" / ".strata-state.db"
    if state.exists():
        con = sqlite3.connect(f"file:{state}?mode=ro", uri=True)
        try:
            tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if "partitions" in tables:
                assert con.execute("SELECT count(*) FROM partitions").fetchone()[0] == 0
        finally:
            con.close()
    assert not project.table_exists("marts", "fct_daily_orders")
    assert not project.table_exists("marts", "fct_hourly")


def assert_refused(project, result, code, *needles):
    assert result.returncode == 1, repr(result)
    errors = errors_of(result)
    assert [e["code"] for e in errors] == [code], repr(result)
    text = errors[0]["message"] + " " + errors[0].get("hint", "")
    for needle in needles:
        assert needle in text, f"{needle!r} not in {text!r}"
    nothing_ran(project)
    return errors[0]


@pytest.mark.parametrize("args, code, needles", [
    (["--model", "fct_daily_orders", "--partition", "2026-04-7"], "InvalidPartitionKey",
     ["fct_daily_orders", "2026-04-7", "%Y-%m-%d"]),
    (["--model", "fct_daily_orders", "--partition", "2025-02-29"], "InvalidPartitionKey",
     ["fct_daily_orders", "2025-02-29"]),
    (["--model", "fct_hourly", "--partition", "2026-04-07T24"], "InvalidPartitionKey",
     ["fct_hourly", "2026-04-07T24", "%Y-%m-%dT%H"]),
    (["--model", "fct_hourly", "--partition", "2026-04-07"], "InvalidPartitionKey",
     ["fct_hourly", "2026-04-07"]),
    (["--model", "fct_daily_orders", "--from", "2026-04-08", "--to", "2026-04-07"], "Selection",
     ["2026-04-08", "2026-04-07"]),
    (["--model", "fct_daily_orders", "--from", "2026-04-01"], "Usage", ["--to"]),
    (["--partition", "2026-04-07", "--missing"], "Usage", ["mutually exclusive"]),
    (["--partition", "2026-04-07", "--from", "2026-04-01", "--to", "2026-04-02"], "Usage",
     ["mutually exclusive"]),
    (["--latest", "--missing"], "Usage", ["mutually exclusive"]),
    (["--model", "fct_daily_orders", "--missing"], "Selection", ["first_partition"]),
    (["--model", "no_such_model", "--partition", "2026-04-07"], "ModelNotFound", ["no_such_model"]),
    (["--model", "fct_daily_orders", "--lookback", "-1"], "Usage", ["--lookback"]),
    (["--model", "fct_daily_orders", "--parallel", "0"], "Usage", ["--parallel"]),
], ids=["day-no-padding", "day-not-leap", "hour-24", "hour-given-day", "from-after-to",
        "from-without-to", "partition+missing", "partition+range", "latest+missing",
        "missing-without-first", "unknown-model", "negative-lookback", "parallel-0"])
def test_bad_selection_is_refused(two_models, args, code, needles):
    for command in ("run", "plan"):
        result = two_models.strata(command, *args)
        assert_refused(two_models, result, code, *needles)
    human = two_models.strata("run", *args, output="human")
    assert human.returncode == 1
    assert f"error[{code}]" in human.stderr, human.stderr
    assert human.stdout.strip() == "" or "error" not in human.stdout


def write_bad_toml(project, strategy_lines, extra_top=""):
    """A daily model whose [strategy] holds `strategy_lines`; returns the line number of the last
    strategy line."""
    text = (f'name = "fct_daily_orders"\n{extra_top}'
            '\n[[sources]]\nschema = "raw"\ntable = "stg_orders"\n\n[strategy]\n'
            'type = "time_interval"\ntime_column = "order_date"\ngranularity = "day"\n')
    text += "".join(line + "\n" for line in strategy_lines)
    text += '\n[target]\nschema = "marts"\ntable = "fct_daily_orders"\n'
    project.write("models/fct_daily_orders.toml", text)
    project.write("models/fct_daily_orders.sql", DAILY_SQL)
    lines = text.splitlines()
    return lines.index(strategy_lines[-1]) + 1 if strategy_lines else None


@pytest.mark.parametrize("strategy_lines, code, needles", [
    (["lookbak = 3"], "ConfigUnknownKey", ["lookbak", "did you mean", "lookback"]),
    (['lookback = "3"'], "ConfigType", ["lookback", "lookback = 3"]),  # the hint's example
    (["batch_size = 0"], "Config", ["batch_size"]),
    (['first_partition = "2026-4-01"'], "E026", ["2026-4-01"]),
    (['first_partition = "2026-04"'], "E026", ["2026-04"]),
], ids=["unknown-key", "wrong-type", "batch-size-0", "first-partition-no-padding",
        "first-partition-wrong-grain"])
def test_bad_model_config_is_refused(project, strategy_lines, code, needles):
    project.create_orders(ROWS)
    line = write_bad_toml(project, strategy_lines)
    result = project.strata("run", "--partition", "2026-04-06")
    error = assert_refused(project, result, code, *needles)
    assert error["file"] == "models/fct_daily_orders.toml"
    assert error["line"] == line
    human = project.strata("run", "--partition", "2026-04-06", output="human")
    assert human.returncode == 1
    assert f"error[{code}]" in human.stderr
    assert f"models/fct_daily_orders.toml:{line}" in human.stderr, human.stderr
    compiled = project.strata("compile")
    assert compiled.returncode == 1
    assert [d["code"] for d in compiled.json["diagnostics"]] == [code]


@pytest.mark.parametrize("top, needles", [
    ('[project]\nname = "e2e\n', ["close the string"]),
    ('[project]\nname = "e2e"\nname = "again"\n', ["once per file"]),
    ('[project\nname = "e2e"\n', ["headers closed"]),
    ('[project]\nname = 3\n', ['name = "..."']),
], ids=["unterminated-string", "duplicate-key", "unclosed-header", "number-for-a-string"])
def test_toml_mistakes_in_strata_toml_come_with_a_hint(project, top, needles):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    text = (project.root / "strata.toml").read_text().replace('[project]\nname = "e2e"\n', top)
    project.write("strata.toml", text)
    result = project.strata("run", "--partition", "2026-04-06")
    assert result.returncode == 1, repr(result)
    error = result.json["errors"][0]
    assert error["file"] == "strata.toml" and error["line"], error
    for needle in needles:
        assert needle in error.get("hint", ""), error
    nothing_ran(project)


def test_a_missing_required_key_says_what_to_add(project):
    project.create_orders(ROWS)
    project.write("models/fct_daily_orders.toml",
                  'name = "fct_daily_orders"\n\n[strategy]\ntype = "time_interval"\n'
                  'granularity = "day"\n')
    project.write("models/fct_daily_orders.sql", DAILY_SQL)
    error = assert_refused(project, project.strata("run", "--partition", "2026-04-06"), "Config",
                           "time_column")
    assert "add time_column" in error["hint"] and "fct_daily_orders.toml" in error["hint"], error


def test_unknown_key_in_strata_toml(project):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    text = (project.root / "strata.toml").read_text().replace('type = "duckdb"', 'typ = "duckdb"')
    project.write("strata.toml", text)
    result = project.strata("run", "--partition", "2026-04-06", output="human")
    assert result.returncode == 1
    assert "error[ConfigUnknownKey]" in result.stderr
    line = text.splitlines().index('typ = "duckdb"') + 1
    assert f"strata.toml:{line}" in result.stderr and "did you mean" in result.stderr, result.stderr
    nothing_ran(project)


def test_dependency_cycle_is_refused_with_its_path(project):
    project.create_orders(ROWS)
    sql = "SELECT order_at AS t FROM stg_orders WHERE order_at >= @start_date AND order_at < @end_date\n"
    project.add_model("model_a", sql, strategy_toml("day", time_column="t"), depends_on=["model_b"])
    project.add_model("model_b", sql, strategy_toml("day", time_column="t"), depends_on=["model_c"])
    project.add_model("model_c", sql, strategy_toml("day", time_column="t"), depends_on=["model_a"])
    result = project.strata("run", "--partition", "2026-04-06")
    assert result.returncode == 1, repr(result)
    errors = result.json["errors"]
    assert [e["code"] for e in errors] == ["DependencyCycle"]
    message = errors[0]["message"]
    path = re.search(r"(model_\w)( -> model_\w)+", message)
    assert path, message
    names = path.group(0).split(" -> ")
    assert names[0] == names[-1] and sorted(set(names)) == ["model_a", "model_b", "model_c"], message
    # each step follows a depends_on edge
    edges = {"model_a": "model_b", "model_b": "model_c", "model_c": "model_a"}
    reverse = {v: k for k, v in edges.items()}
    assert all(edges[x] == y for x, y in zip(names, names[1:])) or \
        all(reverse[x] == y for x, y in zip(names, names[1:])), message
    compiled = project.strata("compile")
    assert compiled.returncode == 1
    assert "DependencyCycle" in [d["code"] for d in compiled.json["diagnostics"]]


def add_broken_pair(project):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.add_model("fct_broken", DAILY_SQL.replace("  AND order_at <  @end_date\n", ""),
                      strategy_toml("day"), target=("marts", "fct_broken"))


def test_missing_end_date_placeholder_run_reports_model_and_exits_2(project):
    add_broken_pair(project)
    # run: the broken model is reported, the other model still runs -> exit 2
    result = project.run("--partition", "2026-04-06", expect=2)
    report = result.json
    assert report["status"] == "partial_failure"
    broken = [e for e in report["errors"] if e["model"] == "fct_broken"]
    assert len(broken) == 1 and "end_date" in broken[0]["message"], report["errors"]
    assert "E024" in broken[0]["code"] + broken[0]["message"]
    assert [e["model"] for e in report["errors"]] == ["fct_broken"]
    assert mats_by_key(report, "fct_daily_orders")["2026-04-06"]["status"] == "Computed"
    assert project.table_exists("marts", "fct_daily_orders")
    assert not project.table_exists("marts", "fct_broken")
    summaries = {s["model"]: s for s in report["partition_summaries"]}
    assert summaries["fct_daily_orders"]["partitions_succeeded"] == 1
    assert summaries["fct_broken"]["partitions_succeeded"] == 0
    assert summaries["fct_broken"]["partitions_failed"] >= 1


def test_missing_end_date_placeholder_compile_exits_1(project):
    add_broken_pair(project)
    compiled = project.strata("compile")
    assert compiled.returncode == 1, repr(compiled)
    out = compiled.json
    assert out["errors"] == 1 and out["models"] == 2
    diag = out["diagnostics"][0]
    assert diag["model"] == "fct_broken" and diag["severity"] == "error"
    assert diag["file"] == "models/fct_broken.sql"
    # project.md: compile diagnostics carry the compiler code, e.g. {"code": "E024", ...}
    assert diag["code"] == "E024", diag


@pytest.mark.parametrize("select_extra, where", [
    # placeholder only in a comment
    ("", "WHERE order_at >= @start_date -- AND order_at < @end_date\n"),
    # placeholder only in the SELECT list (seed: "only in the SELECT list does not count")
    (", @end_date AS window_end", "WHERE order_at >= @start_date\n"),
    # placeholder only as part of a longer identifier
    ("", "WHERE order_at >= @start_date AND order_at < @end_date_x\n"),
    # placeholder only inside a longer string
    ("", "WHERE order_at >= @start_date AND 'x @end_date' <> ''\n"),
], ids=["comment", "select-list-only", "longer-identifier", "longer-string"])
def test_e024_placeholder_that_does_not_filter(project, select_extra, where):
    project.create_orders(ROWS)
    sql = ("SELECT DATE_TRUNC('day', order_at) AS order_date, COUNT(*) AS n" + select_extra +
           "\nFROM stg_orders\n" + where + "GROUP BY 1\n")
    project.add_model("fct_daily_orders", sql, strategy_toml("day"))
    compiled = project.strata("compile")
    assert compiled.returncode == 1, f"E024 expected for:\n{sql}\n{compiled!r}"
    diagnostics = compiled.json["diagnostics"]
    assert len(diagnostics) == 1
    assert "E024" in diagnostics[0]["code"] + diagnostics[0]["message"]


@pytest.mark.parametrize("run_table, code, needle", [
    ("[run]\nmax_retries = 99\n", "Config", "max_retries"),
    ("[run]\nretry_base_ms = -5\n", "ConfigType", "retry_base_ms"),
    ("[run]\nmax_retrys = 2\n", "ConfigUnknownKey", "did you mean"),
    ('[run]\nbatching = "sometimes"\n', "Config", "batching"),
    ("[run]\nbatching = 1\n", "ConfigType", "batching"),
])
def test_bad_run_config_is_refused(project, run_table, code, needle):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.write("strata.toml", (project.root / "strata.toml").read_text() + "\n" + run_table)
    result = project.strata("run", "--partition", "2026-04-06", output="human")
    assert result.returncode == 1, result
    assert f"error[{code}]" in result.stderr and needle in result.stderr, result.stderr
    nothing_ran(project)


def test_run_config_is_accepted(project):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.write("strata.toml", (project.root / "strata.toml").read_text()
                  + "\n[run]\nmax_retries = 0\nretry_base_ms = 10\n")
    report = project.run("--partition", "2026-04-06").json
    assert [m["attempts"] for m in report["materializations"]] == [1]
