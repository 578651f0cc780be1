"""Gaps found by trying strata as a new user (issue 14): invalid UTF-8, numeric flag ranges,
unreadable model files, stray .sql files, argument errors in JSON, and target/source names."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

from conftest import DAILY_SQL, strategy_toml

ROWS = [(1, 1, "1.00", "2026-04-06 10:00:00"), (2, 2, "2.00", "2026-04-07 10:00:00")]
SIMPLE_SQL = "SELECT order_id, amount FROM stg_orders\n"


def strata_bytes(project, *args, output="json", prefix=()):
    """Runs strata with raw argv bytes allowed; returns (returncode, stdout bytes, stderr bytes)."""
    argv = [*prefix, project.bin, *args, "--project", str(project.root)]
    if output:
        argv += ["--output", output]
    completed = subprocess.run(argv, capture_output=True, timeout=60, cwd=project.root)
    return completed.returncode, completed.stdout, completed.stderr


def only_error(result, code):
    assert result.returncode == 1, repr(result)
    errors = result.json["errors"]
    assert [e["code"] for e in errors] == [code], repr(result)
    return errors[0]


# ----- 2. invalid UTF-8 ----------------------------------------------------------------------

@pytest.mark.parametrize("sql, line", [
    (b"SELECT order_id\n  -- caf\xe9 \xff\nFROM stg_orders\n", 2),
    (b"SELECT order_id, 'caf\xe9' AS label FROM stg_orders\n", 1),
    (b"SELECT order_id\nFROM stg_orders -- \xed\xa0\x80 (a UTF-16 surrogate)\n", 2),
], ids=["comment", "string-literal", "surrogate"])
def test_invalid_utf8_in_model_sql_is_a_coded_error_naming_file_and_line(project, sql, line):
    project.create_orders(ROWS)
    project.add_model("stg_copy", "", '[strategy]\ntype = "full_refresh"\n')
    (project.models_dir / "stg_copy.sql").write_bytes(sql)
    for command in ("run", "plan"):
        code, out, err = strata_bytes(project, command)
        assert code == 1, (out, err)
        assert b"internal error" not in err, err
        errors = json.loads(out.decode("utf-8"))["errors"]
        assert [e["code"] for e in errors] == ["SqlLex"], errors
        assert errors[0]["file"] == "models/stg_copy.sql"
        assert errors[0]["line"] == line
        assert "UTF-8" in errors[0]["message"] and "byte offset" in errors[0]["message"]
        assert errors[0]["hint"]
    code, out, err = strata_bytes(project, "compile")
    assert code == 1 and b"internal error" not in err, (out, err)
    diagnostics = json.loads(out.decode("utf-8"))["diagnostics"]
    assert [(d["code"], d["file"], d["line"]) for d in diagnostics] == [
        ("SqlLex", "models/stg_copy.sql", line)]
    code, out, err = strata_bytes(project, "run", output="human")
    assert code == 1 and f"models/stg_copy.sql:{line}".encode() in err, err
    assert not project.table_exists("main", "stg_copy")


def test_json_output_never_throws_on_bytes_it_did_not_validate(project):
    project.create_orders(ROWS)
    project.add_model("stg_copy", SIMPLE_SQL, '[strategy]\ntype = "full_refresh"\n')
    # An unknown model name with invalid UTF-8 is echoed in the error message.
    code, out, err = strata_bytes(project, "run", "--model", os.fsdecode(b"caf\xe9\xff"))
    assert code == 1 and b"internal error" not in err, (out, err)
    errors = json.loads(out.decode("utf-8"))["errors"]
    assert [e["code"] for e in errors] == ["ModelNotFound"]
    assert "caf\ufffd" in errors[0]["message"]
    # A model file whose name is not UTF-8: the default model name is echoed in the error.
    (project.models_dir / os.fsdecode(b"bad\xff.toml")).write_text('[strategy]\ntype = "view"\n')
    (project.models_dir / os.fsdecode(b"bad\xff.sql")).write_text("SELECT 1 AS x\n")
    for command in ("run", "compile"):
        code, out, err = strata_bytes(project, command)
        assert code == 1 and b"internal error" not in err, (out, err)
        json.loads(out.decode("utf-8"))


# ----- 3. numeric flags out of range ---------------------------------------------------------

NUMERIC_CASES = [
    (["run", "--lookback", "4294967296"], "--lookback"),
    (["run", "--lookback", "4294967298"], "--lookback"),
    (["plan", "--lookback", "99999999999999999999999"], "--lookback"),
    (["plan", "--lookback", "1e3"], "--lookback"),
    (["run", "--lookback", "-1"], "--lookback"),
    (["run", "--lookback", "100001"], "--lookback"),
    (["run", "--parallel", "4294967297"], "--parallel"),
    (["run", "--parallel", "-1"], "--parallel"),
    (["plan", "--parallel", "1000000"], "--parallel"),
    (["run", "--parallel", "0x10"], "--parallel"),
    (["apply", "0123abcd", "--parallel", "4294967297"], "--parallel"),
    (["apply", "0123abcd", "--parallel", "0"], "--parallel"),
    (["show", "stg_copy", "--limit", "-1"], "--limit"),
    (["show", "stg_copy", "--limit", "4294967296"], "--limit"),
]


@pytest.mark.parametrize("args, flag", NUMERIC_CASES,
                         ids=[" ".join(args) for args, _ in NUMERIC_CASES])
def test_numeric_flag_out_of_range_is_a_usage_error(project, args, flag):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.add_model("stg_copy", SIMPLE_SQL, '[strategy]\ntype = "full_refresh"\n')
    result = project.strata(*args)
    error = only_error(result, "Usage")
    assert flag in error["message"], error
    assert not project.table_exists("marts", "fct_daily_orders")
    human = project.strata(*args, output="human")
    assert human.returncode == 1 and "error[Usage]" in human.stderr and flag in human.stderr, human


def test_numeric_flags_at_their_bounds_are_accepted(project):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    result = project.strata("plan", "--partition", "2026-04-07", "--lookback", "2", "--parallel", "1")
    assert result.returncode == 0, repr(result)
    assert result.json["parallel"] == 1
    keys = [k for b in result.json["models"][0]["batches"] for k in b["keys"]]
    assert keys == ["2026-04-05", "2026-04-06", "2026-04-07"], keys
    # Leading zeros are decimal (CLI11 alone would read 010 as octal 8).
    decimal = project.strata("plan", "--partition", "2026-04-07", "--parallel", "010")
    assert decimal.returncode == 0 and decimal.json["parallel"] == 10, repr(decimal)
    top = project.strata("plan", "--partition", "2026-04-07", "--parallel", "256")
    assert top.returncode == 0 and top.json["parallel"] == 256, repr(top)
    project.run("--partition", "2026-04-07")
    shown = project.strata("show", "fct_daily_orders", "--limit", "0")
    assert shown.returncode == 0 and shown.json["rows"] == [], repr(shown)


def test_show_names_the_closest_model_and_says_to_build_an_unbuilt_one(project):
    project.create_orders(ROWS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    misspelt = only_error(project.strata("show", "fct_daily_order"), "ModelNotFound")
    assert "fct_daily_orders" in misspelt["hint"], misspelt
    unbuilt = only_error(project.strata("show", "fct_daily_orders"), "WarehouseCatalog")
    assert "strata run --model fct_daily_orders" in unbuilt["hint"], unbuilt
    project.run("--partition", "2026-04-07")
    shown = project.strata("show", "fct_daily_orders")
    assert shown.returncode == 0 and len(shown.json["rows"]) == 1, repr(shown)


# ----- 4. unreadable model files -------------------------------------------------------------

def test_sql_path_that_is_a_directory_is_an_io_error(project):
    project.create_orders(ROWS)
    project.add_model("stg_copy", SIMPLE_SQL, '[strategy]\ntype = "full_refresh"\n')
    sql = project.models_dir / "stg_copy.sql"
    sql.unlink()
    sql.mkdir()
    error = only_error(project.strata("run"), "Io")
    assert "models/stg_copy.sql" in error["message"], error
    assert "Is a directory" in error["message"], error
    compiled = project.strata("compile")
    assert compiled.returncode == 1
    assert [d["code"] for d in compiled.json["diagnostics"]] == ["Io"]


def test_missing_sql_file_is_still_reported_as_such(project):
    project.add_model("stg_copy", SIMPLE_SQL, '[strategy]\ntype = "full_refresh"\n')
    (project.models_dir / "stg_copy.sql").unlink()
    result = project.strata("run")
    error = only_error(result, "Config")
    assert "has no SQL file" in error["message"], error


def unprivileged_prefix():
    """argv prefix running a command as an unprivileged user, or None when we cannot (root
    ignores file permissions, so the test needs another user)."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        return None
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


@pytest.mark.parametrize("unreadable", ["sql", "toml"])
def test_unreadable_model_file_is_an_io_error_with_the_os_reason(strata_bin, unreadable):
    prefix = unprivileged_prefix()
    if prefix is None:
        pytest.skip("running as root without setpriv: root reads files whatever their mode")
    from conftest import Project
    # A folder every user can traverse (pytest's tmp_path is private to root).
    base = Path(tempfile.mkdtemp(prefix="strata-unreadable-"))
    try:
        base.chmod(0o755)
        # The binary and libduckdb.so may sit in a folder only root can enter (a CI clone in a
        # private temp folder): the unprivileged user runs copies from `base`.
        bin_dir = base / "bin"
        bin_dir.mkdir()
        runnable = bin_dir / "strata"
        shutil.copy(strata_bin, runnable)
        for line in subprocess.run(["ldd", strata_bin], capture_output=True, text=True).stdout.splitlines():
            if "libduckdb" in line and "=>" in line:
                shutil.copy(line.split("=>")[1].split("(")[0].strip(), bin_dir / "libduckdb.so")
        for path in (bin_dir, *bin_dir.iterdir()):
            path.chmod(0o755)
        prefix = [*prefix, "env", f"LD_LIBRARY_PATH={bin_dir}"]
        project = Project(base / "proj", str(runnable))
        for path in (project.root, project.models_dir):
            path.chmod(0o755)
        project.add_model("stg_copy", SIMPLE_SQL, '[strategy]\ntype = "full_refresh"\n')
        for path in project.root.rglob("*"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        (project.models_dir / f"stg_copy.{unreadable}").chmod(0o000)
        code, out, err = strata_bytes(project, "compile", prefix=prefix)
        assert code == 1, (out, err)
        diagnostics = json.loads(out)["diagnostics"]
        assert [d["code"] for d in diagnostics] == ["Io"], diagnostics
        assert f"models/stg_copy.{unreadable}" in diagnostics[0]["message"], diagnostics
        assert "Permission denied" in diagnostics[0]["message"], diagnostics
    finally:
        shutil.rmtree(base, ignore_errors=True)


# ----- 5. a .sql without a .toml -------------------------------------------------------------

def test_sql_file_without_toml_is_a_warning_naming_it(project):
    project.create_orders(ROWS)
    project.add_model("stg_copy", SIMPLE_SQL, '[strategy]\ntype = "full_refresh"\n')
    project.write("models/orders_summary.sql", "SELECT count(*) AS n FROM stg_orders\n")
    compiled = project.strata("compile")
    assert compiled.returncode == 0, repr(compiled)
    document = compiled.json
    assert document["errors"] == 0 and document["warnings"] == 1, document
    [warning] = document["diagnostics"]
    assert warning["code"] == "W031" and warning["severity"] == "warning", warning
    assert warning["file"] == "models/orders_summary.sql", warning
    assert "orders_summary.toml" in warning["message"] + warning["hint"], warning

    human = project.strata("compile", output="human")
    assert human.returncode == 0
    assert "warning[W031]" in human.stderr and "models/orders_summary.sql" in human.stderr, human

    ran = project.run()
    assert ran.json["status"] == "success"  # stdout stays one JSON document
    assert "warning[W031]" in ran.stderr and "models/orders_summary.sql" in ran.stderr, ran
    ran = project.strata("run", output="human")
    assert ran.returncode == 0, repr(ran)
    assert "warning[W031]" in ran.stderr and "models/orders_summary.sql" in ran.stderr, ran
    quiet = project.strata("run", "--quiet", output="human")
    assert quiet.returncode == 0 and "W031" not in quiet.stderr, quiet
    assert not project.table_exists("main", "orders_summary")


# ----- 7. argument errors as coded Usage errors ------------------------------------------------

ARGUMENT_CASES = [
    ["run", "--bogus"],
    ["run", "--output", "yaml"],
    ["run", "--lookback", "-1"],
    ["run", "--lookback"],
    ["compile", "extra-positional"],
    ["show"],
    ["frobnicate"],
]


@pytest.mark.parametrize("args", ARGUMENT_CASES, ids=[" ".join(a) for a in ARGUMENT_CASES])
def test_argument_errors_are_coded_usage_errors_in_json(project, args):
    for output_args in (["--output", "json"], ["--output=json"]):
        completed = subprocess.run([project.bin, *args, *output_args], capture_output=True,
                                   text=True, timeout=60, cwd=project.root)
        assert completed.returncode == 1, completed
        document = json.loads(completed.stdout)
        assert [e["code"] for e in document["errors"]] == ["Usage"], document
        assert document["errors"][0]["message"], document
        assert document["errors"][0]["hint"], document


def test_argument_errors_with_human_asked_go_to_stderr(project):
    # --output human asks for text even on a pipe (where the default is JSON: test_day_one.py).
    completed = subprocess.run([project.bin, "run", "--bogus", "--output", "human"],
                               capture_output=True, text=True, timeout=60, cwd=project.root)
    assert completed.returncode == 1
    assert completed.stdout == ""
    assert "error[Usage]" in completed.stderr and "--bogus" in completed.stderr, completed


def test_unknown_command_suggests_the_closest(project):
    completed = subprocess.run([project.bin, "compil", "--output", "json"], capture_output=True,
                               text=True, timeout=60, cwd=project.root)
    assert completed.returncode == 1
    [error] = json.loads(completed.stdout)["errors"]
    assert error["code"] == "Usage" and "compil" in error["message"], error
    assert 'did you mean "compile"' in error["hint"], error


def test_help_still_exits_0(project):
    completed = subprocess.run([project.bin, "run", "--help"], capture_output=True, text=True,
                               timeout=60, cwd=project.root)
    assert completed.returncode == 0 and "--lookback" in completed.stdout, completed


# ----- 8. target, schema, catalog and source names -------------------------------------------

def model_toml(target_lines, sources_lines=('schema = "raw"', 'table = "stg_orders"')):
    text = 'name = "stg_copy"\n\n[[sources]]\n' + "\n".join(sources_lines) + "\n"
    text += '\n[strategy]\ntype = "full_refresh"\n\n[target]\n' + "\n".join(target_lines) + "\n"
    return text


BAD_NAMES = [
    (['schema = "raw"', 'table = \'evil"; DROP TABLE raw.stg_orders; --\''], None, 'table'),
    (['schema = "my schema"', 'table = "stg_copy"'], None, "schema"),
    (['catalog = "ware.house"', 'schema = "raw"', 'table = "stg_copy"'], None, "catalog"),
    (['schema = "raw"', 'table = ""'], None, "table"),
    (['schema = "raw"', 'table = "1st_copy"'], None, "table"),
    (['schema = "raw"', 'table = "caf\u00e9"'], None, "table"),
    (['schema = "raw"', 'table = "stg_copy"'], ['schema = "raw"', 'table = "orders`x"'], "table"),
    (['schema = "raw"', 'table = "stg_copy"'], ['schema = "r\\"aw"', 'table = "orders"'], "schema"),
]


@pytest.mark.parametrize("target, sources, key", BAD_NAMES,
                         ids=["injection", "space", "dot", "empty", "digit-first", "non-ascii",
                              "source-backtick", "source-quote"])
def test_invalid_object_names_are_refused_at_load_time(project, target, sources, key):
    project.create_orders(ROWS)
    text = model_toml(target, sources) if sources else model_toml(target)
    project.write("models/stg_copy.toml", text)
    project.write("models/stg_copy.sql", SIMPLE_SQL)
    lines = text.splitlines()
    section = "[[sources]]" if sources else "[target]"
    start = lines.index(section)
    line = next(i for i in range(start, len(lines)) if lines[i].startswith(key + " =")) + 1
    for command in ("run", "plan", "compile"):
        result = project.strata(command)
        assert result.returncode == 1, repr(result)
        if command == "compile":
            [error] = result.json["diagnostics"]
        else:
            error = only_error(result, "Config")
        assert error["code"] == "Config", error
        assert error["file"] == "models/stg_copy.toml" and error["line"] == line, error
        assert key in error["message"] and error["hint"], error
    tables = project.query("SELECT table_schema || '.' || table_name FROM information_schema.tables")
    assert tables == [("raw.stg_orders",)], tables


def catalog_line(text, section, key="catalog"):
    lines = text.splitlines()
    start = lines.index(section)
    return next(i for i in range(start, len(lines)) if lines[i].startswith(key + " =")) + 1


@pytest.mark.parametrize("target, sources, section", [
    (['catalog = "lake"', 'schema = "raw"', 'table = "stg_copy"'], None, "[target]"),
    (['schema = "raw"', 'table = "stg_copy"'],
     ['catalog = "lake"', 'schema = "raw"', 'table = "stg_orders"'], "[[sources]]"),
], ids=["target", "source"])
def test_duckdb_catalog_other_than_its_database_is_refused(project, target, sources, section):
    # On DuckDB a catalog is the attached database's name: warehouse.duckdb is "warehouse". An
    # unknown one used to be dropped silently, so the model was written into warehouse.raw.
    project.create_orders(ROWS)
    text = model_toml(target, sources) if sources else model_toml(target)
    project.write("models/stg_copy.toml", text)
    project.write("models/stg_copy.sql", SIMPLE_SQL)
    line = catalog_line(text, section)
    [diagnostic] = project.strata("compile").json["diagnostics"]
    assert diagnostic["code"] == "Config", diagnostic
    assert diagnostic["file"] == "models/stg_copy.toml" and diagnostic["line"] == line, diagnostic
    assert '"lake"' in diagnostic["message"] and "catalog" in diagnostic["message"], diagnostic
    assert 'catalog = "warehouse"' in diagnostic["hint"], diagnostic
    # The model fails at plan time (its error names the file and line, with the hint) and the
    # run reports it failed; nothing runs.
    plan = project.strata("plan")
    assert plan.returncode == 1, repr(plan)
    [planned] = plan.json["models"]
    run = project.strata("run")
    assert run.returncode == 1, repr(run)
    for error in (planned["error"], only_error(run, "Config")):
        assert error["code"] == "Config", error
        assert error["message"].startswith(f"models/stg_copy.toml:{line}: "), error
        assert '"lake"' in error["message"] and 'catalog = "warehouse"' in error["message"], error
    tables = project.query("SELECT table_schema || '.' || table_name FROM information_schema.tables")
    assert tables == [("raw.stg_orders",)], tables


def test_duckdb_catalog_naming_its_database_is_used_in_any_case(project):
    project.create_orders(ROWS)
    project.write("models/stg_copy.toml", model_toml(
        ['catalog = "WareHouse"', 'schema = "marts"', 'table = "stg_copy"'],
        ['catalog = "warehouse"', 'schema = "raw"', 'table = "stg_orders"']))
    project.write("models/stg_copy.sql", SIMPLE_SQL)
    result = project.strata("run")
    assert result.returncode == 0, repr(result)
    assert project.query("SELECT count(*) FROM marts.stg_copy") == [(2,)]


def test_postgres_names_are_limited_to_63_bytes(project):
    project.create_orders(ROWS)
    long_name = "t" * 64
    project.write("models/stg_copy.toml", model_toml(['schema = "raw"', f'table = "{long_name}"']))
    project.write("models/stg_copy.sql", SIMPLE_SQL)
    # DuckDB alone accepts 64 bytes ...
    assert project.strata("compile").returncode == 0
    # ... but not once a PostgreSQL warehouse may build it (PostgreSQL truncates to 63 bytes).
    with open(project.root / "strata.toml", "a") as toml:
        toml.write('\n[warehouses.pg]\ntype = "postgres"\ndsn_env = "STRATA_E2E_UNSET_DSN"\n')
    result = project.strata("compile")
    assert result.returncode == 1, repr(result)
    [error] = result.json["diagnostics"]
    assert error["code"] == "Config" and "63" in error["message"] + error["hint"], error
    assert "postgres" in error["message"], error


def test_bigquery_project_ids_may_hold_dashes(project):
    project.write("strata.toml", textwrap.dedent("""\
        [project]
        name = "e2e"

        [warehouse]
        type = "bigquery"
        dsn_env = "STRATA_E2E_UNSET_DSN"
        """))
    project.write("models/stg_copy.toml", model_toml(
        ['catalog = "my-project-123"', 'schema = "marts"', 'table = "stg_copy"'],
        ['catalog = "my-project-123"', 'schema = "raw"', 'table = "stg_orders"']))
    project.write("models/stg_copy.sql", SIMPLE_SQL)
    result = project.strata("plan")
    assert result.returncode == 0, repr(result)
    assert "`my-project-123`.`marts`.`stg_copy`" in json.dumps(result.json), result.json
    project.write("models/stg_copy.toml", model_toml(
        ['catalog = "my-project-123"', 'schema = "my-marts"', 'table = "stg_copy"']))
    error = only_error(project.strata("plan"), "Config")
    assert "schema" in error["message"] and "bigquery" in error["message"], error
