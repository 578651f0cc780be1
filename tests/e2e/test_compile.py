"""`strata compile` column and dependency checks (issue 3) against real DuckDB source tables.

Types and nullability come from the warehouse catalog when the DuckDB file exists (E021, E022,
E025); names need no catalog (E020); dependencies are checked from the SQL (E027, W027).
"""
from __future__ import annotations

import pytest

from conftest import strategy_toml

WINDOW = "WHERE event_at >= @start_date AND event_at < @end_date\n"


def create_events(project, event_at_type="TIMESTAMP", event_at_null="", extra_columns=""):
    project.execute(
        "CREATE SCHEMA IF NOT EXISTS raw",
        "CREATE OR REPLACE TABLE raw.events (id INTEGER NOT NULL, "
        f"event_at {event_at_type} {event_at_null}, loaded_at TIMESTAMP NOT NULL{extra_columns})")


def add_events_model(project, sql, granularity="day", time_column="event_date", **kwargs):
    project.add_model("fct_events", sql, strategy_toml(granularity, time_column=time_column),
                      sources=(("raw", "events"),), **kwargs)


def compile_json(project):
    result = project.strata("compile")
    assert result.returncode in (0, 1), repr(result)
    return result, result.json


def codes(out):
    return [d["code"] for d in out["diagnostics"]]


def test_e021_time_column_of_a_non_temporal_type(project):
    create_events(project, event_at_type="VARCHAR")
    add_events_model(project, "SELECT id,\n       event_at AS event_date\nFROM events\n" + WINDOW)
    result, out = compile_json(project)
    assert result.returncode == 1, repr(result)
    assert codes(out) == ["E021"], out
    diagnostic = out["diagnostics"][0]
    assert diagnostic["model"] == "fct_events" and diagnostic["severity"] == "error"
    assert diagnostic["file"] == "models/fct_events.sql"
    assert (diagnostic["line"], diagnostic["column"]) == (2, 8)
    assert "VARCHAR" in diagnostic["message"]
    assert out["catalog"] and out["notes"] == []
    human = project.strata("compile", output="human")
    assert human.returncode == 1
    assert "models/fct_events.sql:2:8: error[E021]" in human.stderr, human.stderr
    assert "       ^" in human.stderr and "hint:" in human.stderr, human.stderr


def test_e021_not_raised_for_a_timestamp_source(project):
    create_events(project)
    add_events_model(project, "SELECT id, event_at AS event_date FROM events\n" + WINDOW)
    result, out = compile_json(project)
    assert result.returncode == 0 and codes(out) == [], out


@pytest.mark.parametrize("where, expected", [
    ("WHERE loaded_at >= @start_date AND loaded_at < @end_date\n", ["E022"]),
    (WINDOW, []),
    ("WHERE loaded_at >= @start_date AND loaded_at < @end_date AND event_at IS NOT NULL\n", []),
], ids=["filter-on-another-column", "window-on-the-column", "is-not-null"])
def test_e022_nullable_time_column_unless_where_rejects_null(project, where, expected):
    create_events(project)  # event_at is nullable
    add_events_model(project, "SELECT DATE_TRUNC('day', event_at) AS event_date, COUNT(*) AS n\n"
                              "FROM events\n" + where + "GROUP BY 1\n")
    result, out = compile_json(project)
    assert codes(out) == expected, out
    assert result.returncode == (1 if expected else 0)


@pytest.mark.parametrize("sql", [
    "SELECT d AS event_date, COUNT(*) AS n\n"
    "FROM (SELECT CAST(event_at AS DATE) AS d FROM events) t\n"
    "GROUP BY 1\nHAVING d >= @start_date AND d < @end_date\n",
    "SELECT event_at AS event_date FROM events\n"
    "QUALIFY event_at >= @start_date AND event_at < @end_date\n",
    "SELECT o.event_at AS event_date FROM events o\n"
    "JOIN events p ON p.id = o.id AND o.event_at >= @start_date AND o.event_at < @end_date\n",
], ids=["having", "qualify", "inner-join-on"])
def test_e022_not_raised_when_having_qualify_or_an_inner_join_rejects_null(project, sql):
    """The seed lets the window's bounds sit in HAVING, QUALIFY or an inner join's ON; each of
    them drops the NULL rows just as WHERE does."""
    create_events(project)  # event_at is nullable
    add_events_model(project, sql)
    result, out = compile_json(project)
    assert codes(out) == [] and result.returncode == 0, out


def test_e022_raised_when_only_an_outer_join_on_tests_the_column(project):
    create_events(project)
    add_events_model(project, "SELECT o.event_at AS event_date FROM events o\n"
                              "LEFT JOIN events p ON p.id = o.id AND o.event_at >= @start_date\n"
                              "WHERE o.loaded_at >= @start_date AND o.loaded_at < @end_date\n")
    result, out = compile_json(project)
    assert codes(out) == ["E022"] and result.returncode == 1, out


def test_e022_not_raised_for_a_not_null_source_column(project):
    create_events(project, event_at_null="NOT NULL")
    add_events_model(project, "SELECT event_at AS event_date FROM events\n"
                              "WHERE loaded_at >= @start_date AND loaded_at < @end_date\n")
    _, out = compile_json(project)
    assert codes(out) == [], out


@pytest.mark.parametrize("expression, expected", [
    ("DATE_TRUNC('day', event_at)", ["E025"]),   # DuckDB: day truncation of a TIMESTAMP is a DATE
    ("CAST(event_at AS DATE)", ["E025"]),
    ("DATE_TRUNC('hour', event_at)", []),
    ("event_at", []),
], ids=["date-trunc-day", "cast-date", "date-trunc-hour", "timestamp"])
def test_e025_hourly_model_with_a_date_column(project, expression, expected):
    create_events(project)
    add_events_model(project, f"SELECT {expression} AS event_hour FROM events\n" + WINDOW,
                     granularity="hour", time_column="event_hour")
    result, out = compile_json(project)
    assert codes(out) == expected, out
    assert result.returncode == (1 if expected else 0)


def test_upstream_model_table_types_come_from_the_warehouse(project):
    create_events(project)
    project.add_model("stg_events", "SELECT id, CAST(event_at AS VARCHAR) AS day FROM events\n",
                      sources=(("raw", "events"),), target=("staging", "stg_events"))
    project.add_model("fct_events", "SELECT day AS event_date FROM stg_events\n"
                      "WHERE day >= @start_date AND day < @end_date\n",
                      strategy_toml("day", time_column="event_date"), depends_on=["stg_events"],
                      sources=())
    _, before = compile_json(project)
    assert codes(before) == [], before  # stg_events is not built yet: its types are unknown
    project.run("--model", "stg_events")
    _, after = compile_json(project)
    assert codes(after) == ["E021"], after


@pytest.mark.parametrize("select, code", [
    ("SELECT id AS event_date FROM events\n" + WINDOW, "E021"),  # INTEGER, known from the catalog
    ("SELECT event_at AS event_date FROM events\n"
     "WHERE loaded_at >= @start_date AND loaded_at < @end_date\n", "E022"),
], ids=["e021", "e022"])
def test_run_refuses_what_compile_refuses_with_the_catalog(project, select, code):
    """plan and run check column types against the warehouse like compile: the model with the
    type error is refused (exit 2) and the other model still runs."""
    create_events(project)
    project.execute("INSERT INTO raw.events VALUES (1, TIMESTAMP '2026-04-06 10:00', "
                    "TIMESTAMP '2026-04-06 10:05')")
    add_events_model(project, select)
    project.add_model("fct_ok", "SELECT CAST(event_at AS DATE) AS event_date, id FROM events\n"
                      + WINDOW + "AND event_at IS NOT NULL\n",
                      strategy_toml("day", time_column="event_date"), sources=(("raw", "events"),))
    _, out = compile_json(project)
    assert [(d["model"], d["code"]) for d in out["diagnostics"]] == [("fct_events", code)], out
    plan = project.strata("plan", "--partition", "2026-04-06")
    assert plan.returncode == 2, repr(plan)  # as the run exits: fct_ok is planned, fct_events not
    errors = {m["model"]: m.get("error") for m in plan.json["models"]}
    assert errors["fct_events"] and errors["fct_events"]["code"] == code, plan.json
    assert not errors["fct_ok"], plan.json
    only_refused = project.strata("plan", "--partition", "2026-04-06", "--model", "fct_events")
    assert only_refused.returncode == 1, repr(only_refused)
    assert only_refused.json["models"][0]["error"]["code"] == code, only_refused.json
    report = project.run("--partition", "2026-04-06", expect=2).json
    assert [(e["model"], e["code"]) for e in report["errors"]] == [("fct_events", code)], report
    assert project.query("SELECT count(*) FROM marts.fct_ok") == [(1,)]
    assert not project.table_exists("marts", "fct_events")


def test_model_and_filter_select_what_compile_checks(project):
    unbounded = "SELECT event_at AS event_date FROM events\n"  # E024 in every copy
    for name, team in (("fct_a", "red"), ("fct_b", "blue"), ("fct_c", "red")):
        project.add_model(name, unbounded, strategy_toml("day", time_column="event_date"),
                          sources=(("raw", "events"),), extra=f'labels = {{ team = "{team}" }}\n')
    def checked(*args):
        result = project.strata("compile", *args)
        assert result.returncode == 1, repr(result)
        return result.json["models"], sorted({d["model"] for d in result.json["diagnostics"]})
    assert checked() == (3, ["fct_a", "fct_b", "fct_c"])
    assert checked("--model", "fct_b") == (1, ["fct_b"])
    assert checked("--filter", "team=red") == (2, ["fct_a", "fct_c"])
    unknown = project.strata("compile", "--model", "fct_x")
    assert unknown.returncode == 1 and unknown.json["errors"][0]["code"] == "ModelNotFound", unknown
    for command in ("compile", "plan", "run"):  # a label no model has selects nothing: an error
        typo = project.strata(command, "--filter", "team=rde")
        assert typo.returncode == 1, repr(typo)
        [error] = typo.json["errors"]
        assert error["code"] == "ModelNotFound" and "team=rde" in error["message"], error
        assert "team: blue, red" in error["hint"], error


def test_full_refresh_models_are_parsed_too(project):
    create_events(project)
    project.add_model("stg_typo", "SELECT id,\nFROM events WHERE\n", sources=(("raw", "events"),))
    result, out = compile_json(project)
    assert result.returncode == 0 and codes(out) == ["W030"], out  # a warning: exit 0
    assert (out["diagnostics"][0]["line"], out["diagnostics"][0]["severity"]) == (2, "warning")
    project.add_model("stg_two", "SELECT 1 AS a;\nSELECT 2 AS a\n", sources=(("raw", "events"),))
    result, out = compile_json(project)
    assert result.returncode == 1 and sorted(codes(out)) == ["E030", "W030"], out
    report = project.run("--model", "stg_two", expect=1).json  # refused: nothing ran
    assert [(e["model"], e["code"]) for e in report["errors"]] == [("stg_two", "E030")], report


def test_without_a_warehouse_types_are_unknown_and_nothing_is_created(project):
    add_events_model(project, "SELECT event_at AS event_date FROM events\n"
                              "WHERE loaded_at >= @start_date AND loaded_at < @end_date\n")
    result, out = compile_json(project)
    assert result.returncode == 0 and codes(out) == [], out
    assert out["catalog"] is None
    assert any("does not exist" in note for note in out["notes"]), out
    assert not project.warehouse_path.exists()
    human = project.strata("compile", output="human")
    assert "note:" in human.stderr and "E022" in human.stderr, human.stderr


def test_e020_time_column_missing_needs_no_warehouse(project):
    add_events_model(project, "SELECT event_at AS event_ts, id\nFROM events\n" + WINDOW)
    result, out = compile_json(project)
    assert result.returncode == 1 and codes(out) == ["E020"], out
    assert "event_ts, id" in out["diagnostics"][0]["message"]
    assert (out["diagnostics"][0]["line"], out["diagnostics"][0]["column"]) == (1, 1)
    # run refuses the model (the compile error gates planning): nothing ran, so exit 1
    report = project.run("--partition", "2026-04-06", expect=1).json
    assert [e["model"] for e in report["errors"]] == ["fct_events"]
    assert report["errors"][0]["code"] == "E020", report["errors"]


def test_a_compile_error_found_at_run_time_leaves_state_as_it_was(project):
    """Nothing reaches the warehouse, so a Computed partition stays Computed (its rows are still
    there) and the run exits 1, as `strata compile` does."""
    add_events_model(project, "SELECT event_at AS event_date, id\nFROM events\n" + WINDOW)
    project.execute("CREATE SCHEMA IF NOT EXISTS raw",
                    "CREATE OR REPLACE TABLE raw.events (event_at TIMESTAMP, id INTEGER)",
                    "INSERT INTO raw.events VALUES ('2026-04-06 10:00:00', 1)")
    project.run("--partition", "2026-04-06")
    before = project.partition_map("fct_events")["2026-04-06"]
    assert before["status"] == "Computed" and before["checksum"], before
    project.set_sql("fct_events", "SELECT event_at AS event_ts, id\nFROM events\n" + WINDOW)
    report = project.run("--model", "fct_events", "--partition", "2026-04-06", expect=1).json
    assert report["errors"][0]["code"] == "E020", report["errors"]
    assert project.partition_map("fct_events")["2026-04-06"] == before
    assert project.query("SELECT count(*) FROM marts.fct_events")[0][0] == 1


@pytest.mark.parametrize("time_column, extra, code, needle, key", [
    ("event-date", {}, "E023", '"event-date" is not a valid SQL identifier', "time_column"),
    ("event_date", {"first_partition": "2026-4-01"}, "E026", "2026-4-01", "first_partition"),
    ("event_date", {"first_partition": "2026-04"}, "E026", "2026-04", "first_partition"),
], ids=["e023-time-column", "e026-unpadded", "e026-wrong-grain"])
def test_e023_e026_config_errors_keep_their_compile_codes(project, time_column, extra, code,
                                                         needle, key):
    """The loader finds these before the compiler runs; they still carry the issue's codes, with
    the TOML line of the key, in compile's report and in run's errors."""
    project.add_model("fct_events", "SELECT event_at AS event_date\nFROM events\n" + WINDOW,
                      strategy_toml("day", time_column=time_column, **extra),
                      sources=(("raw", "events"),))
    toml_lines = (project.models_dir / "fct_events.toml").read_text().splitlines()
    line = next(i for i, text in enumerate(toml_lines, 1) if text.startswith(key))
    result, out = compile_json(project)
    assert result.returncode == 1 and codes(out) == [code], out
    diagnostic = out["diagnostics"][0]
    assert needle in diagnostic["message"], diagnostic
    assert (diagnostic["file"], diagnostic["line"]) == ("models/fct_events.toml", line), diagnostic
    assert diagnostic["model"] == "fct_events" and diagnostic["hint"], diagnostic
    human = project.strata("compile", output="human")
    assert f"models/fct_events.toml:{line}:" in human.stderr and f"error[{code}]" in human.stderr
    run = project.strata("run", "--partition", "2026-04-06")
    assert run.returncode == 1 and [e["code"] for e in run.json["errors"]] == [code], run.json


def test_reading_an_undeclared_model_is_an_error_and_an_unread_dependency_a_warning(project):
    create_events(project)
    project.add_model("stg_events", "SELECT * FROM events\n", sources=(("raw", "events"),),
                      target=("staging", "stg_events"))
    project.add_model("dim_other", "SELECT 1 AS x\n", sources=(), target=("staging", "dim_other"))
    project.add_model("fct_events", "SELECT event_at AS event_date\nFROM   stg_events\n" + WINDOW,
                      strategy_toml("day", time_column="event_date"), depends_on=["dim_other"],
                      sources=())
    result, out = compile_json(project)
    assert result.returncode == 1
    by_code = {d["code"]: d for d in out["diagnostics"]}
    assert sorted(by_code) == ["E027", "W027"], out
    assert (by_code["E027"]["line"], by_code["E027"]["column"]) == (2, 8)
    assert "stg_events" in by_code["E027"]["message"]
    assert by_code["W027"]["severity"] == "warning" and "dim_other" in by_code["W027"]["message"]
    assert by_code["W027"]["file"] == "models/fct_events.toml"
    toml_lines = (project.models_dir / "fct_events.toml").read_text().splitlines()
    assert toml_lines[by_code["W027"]["line"] - 1].startswith("depends_on = ["), by_code["W027"]
    assert by_code["W027"]["column"] == len("depends_on = ") + 1, by_code["W027"]
    assert out["errors"] == 1 and out["warnings"] == 1


def test_diagnostics_come_in_project_order_whatever_the_threads(project):
    """Models are loaded and checked on every core; the report must not depend on it."""
    bounded = ("SELECT DATE_TRUNC('day', order_at) AS order_date, count(*) AS n FROM stg_orders\n"
               "WHERE order_at >= @start_date AND order_at < @end_date GROUP BY 1\n")
    broken = {"m05", "m17", "m33", "m38"}
    for i in range(40):
        name = f"m{i:02d}"
        sql = bounded.replace("@end_date", "@start_date") if name in broken else bounded
        project.add_model(name, sql, strategy_toml("day"))
    runs = [project.strata("compile") for _ in range(3)]
    assert all(r.returncode == 1 for r in runs), runs[0]
    assert runs[0].stdout == runs[1].stdout == runs[2].stdout
    models = [d["model"] for d in runs[0].json["diagnostics"] if d["code"] == "E024"]
    assert models == sorted(broken)


SEMANTIC_YAML = """\
entities:
  - name: Event
    table: raw.events
    primary_key: id
    dimensions:
      - { name: id, type: number }
    measures:
      - { name: events, agg: count }
"""


def test_compile_checks_the_semantic_yaml_too(project):
    """A CI gate on `strata compile` must not pass a semantic model that `strata serve` and
    `strata query` refuse."""
    create_events(project)
    add_events_model(project, "SELECT id, event_at AS event_date FROM events\n" + WINDOW
                     + "AND event_at IS NOT NULL\n")
    project.write("semantic/model.yml", SEMANTIC_YAML)
    result, out = compile_json(project)
    assert result.returncode == 0 and codes(out) == [], out
    project.write("semantic/model.yml", SEMANTIC_YAML.replace("agg: count", "agg: cnt"))
    result, out = compile_json(project)
    assert result.returncode == 1, out
    assert [(d["code"], d["severity"], d["file"], d["line"], d["model"])
            for d in out["diagnostics"]] == [
        ("SemanticInvalid", "error", "semantic/model.yml", 8, None)], out
    assert "cnt" in out["diagnostics"][0]["message"] and out["diagnostics"][0]["hint"], out
    # A selection checks its models only.
    selected = project.strata("compile", "--model", "fct_events")
    assert selected.returncode == 0 and selected.json["diagnostics"] == [], repr(selected)


def test_compile_refuses_a_reserved_word_written_bare(project):
    """Issue 39: a column named like a DuckDB reserved word (`at`) failed only when queried, as
    WarehouseSyntax with an empty hint; it is refused at load, naming the member, with the quoted
    name as the hint, and loads quoted."""
    create_events(project)
    add_events_model(project, "SELECT id, event_at AS event_date FROM events\n" + WINDOW
                     + "AND event_at IS NOT NULL\n")
    at = "{ name: id, type: number }\n      - { name: at, type: time, sql: at }"
    bare = SEMANTIC_YAML.replace("{ name: id, type: number }", at)
    project.write("semantic/model.yml", bare)
    result, out = compile_json(project)
    assert result.returncode == 1, out
    assert [(d["code"], d["file"], d["line"]) for d in out["diagnostics"]] == [
        ("SemanticInvalid", "semantic/model.yml", 7)], out
    assert 'dimension "at"' in out["diagnostics"][0]["message"], out
    assert '"at"' in out["diagnostics"][0]["hint"], out
    project.write("semantic/model.yml", bare.replace("sql: at }", "sql: '\"at\"' }"))
    result, out = compile_json(project)
    assert result.returncode == 0 and codes(out) == [], out
