"""Project files that would destroy or silently misplace data are refused before anything runs:
a model's second statement, a NUL byte in its SQL, two models writing one table, a model writing
a table that is read as a source, a models_dir that does not exist, and a SQLite file named as
the DuckDB warehouse."""
from __future__ import annotations

import sqlite3

import pytest

ROWS = [(1, 1, "1.00", "2026-04-06 10:00:00"), (2, 2, "2.00", "2026-04-07 10:00:00")]
FULL = '[strategy]\ntype = "full_refresh"\n'


def errors_of(result):
    """The errors of a run (`errors`) or of a compile (its error `diagnostics`)."""
    assert result.returncode == 1, repr(result)
    if isinstance(result.json["errors"], int):
        return [d for d in result.json["diagnostics"] if d["severity"] == "error"]
    return result.json["errors"]


@pytest.mark.parametrize("tail, strategy", [
    ("DELETE FROM raw.stg_orders", FULL),
    ("DROP TABLE raw.stg_orders", '[strategy]\ntype = "view"\n'),
    ("  -- a comment first\n  UPDATE raw.stg_orders SET amount = 0", FULL),
], ids=["delete", "drop-from-a-view", "update-after-a-comment"])
def test_a_second_statement_the_parser_cannot_read_is_e030_and_never_runs(project, tail,
                                                                           strategy):
    project.create_orders(ROWS)
    project.add_model("stg_copy", "SELECT * FROM stg_orders;\n" + tail + "\n", strategy)
    compiled = project.strata("compile")
    assert compiled.returncode == 1, repr(compiled)
    diagnostics = compiled.json["diagnostics"]
    assert [(d["code"], d["severity"], d["file"]) for d in diagnostics] == [
        ("E030", "error", "models/stg_copy.sql")], diagnostics
    assert diagnostics[0]["line"] == len(("SELECT * FROM stg_orders;\n" + tail).splitlines())
    run = project.strata("run")
    assert run.returncode in (1, 2), repr(run)
    assert project.query("SELECT count(*), sum(amount) FROM raw.stg_orders") == [(2, 3)]


def test_a_trailing_semicolon_and_comment_are_still_one_statement(project):
    project.create_orders(ROWS)
    project.add_model("stg_copy", "SELECT * FROM stg_orders;\n-- done\n;\n", FULL)
    assert project.strata("compile").json["diagnostics"] == []
    project.run()
    assert project.query("SELECT count(*) FROM marts.stg_copy") == [(2,)]


def test_a_nul_byte_in_model_sql_is_refused_with_its_position(project):
    project.create_orders(ROWS)
    project.add_model("stg_copy", "", FULL)
    (project.models_dir / "stg_copy.sql").write_bytes(
        b"SELECT * FROM stg_orders\n\x00 WHERE amount > 1\n")
    for command in ("compile", "run"):
        found = errors_of(project.strata(command))
        assert [e["code"] for e in found] == ["SqlLex"], found
        assert found[0]["file"] == "models/stg_copy.sql" and found[0]["line"] == 2, found
        assert "NUL" in found[0]["message"] and found[0]["hint"], found
    assert not project.table_exists("marts", "stg_copy")


def test_two_models_writing_one_table_are_refused(project):
    project.create_orders(ROWS)
    project.add_model("daily_a", "SELECT order_id FROM stg_orders\n", FULL, target=("marts", "t"))
    project.add_model("daily_b", "SELECT 0 AS order_id\n", FULL, target=("MARTS", "T"))
    error, = errors_of(project.strata("run"))
    assert error["code"] == "Config", error
    assert "daily_a" in error["message"] and "daily_b" in error["message"], error
    assert error["file"] == "models/daily_b.toml" and error["line"] > 1, error
    assert "models/daily_a.toml" in error["hint"], error
    assert not project.table_exists("marts", "t")


def test_a_model_writing_its_own_source_table_is_refused(project):
    project.create_orders(ROWS)
    project.add_model("stg_orders_clean", "SELECT * FROM stg_orders WHERE amount > 1\n", FULL,
                      target=("raw", "stg_orders"))
    errors = errors_of(project.strata("run"))
    assert [e["code"] for e in errors] == ["Config"], errors
    assert "raw.stg_orders" in errors[0]["message"], errors
    assert errors[0]["file"] == "models/stg_orders_clean.toml", errors
    assert project.query("SELECT count(*) FROM raw.stg_orders") == [(2,)]


def test_same_table_name_in_another_schema_is_another_table(project):
    """A source with no schema is the connection's default schema (DuckDB: main); a model named
    like it that writes marts.orders writes another table."""
    project.create_orders(ROWS, schema="main", table="orders")
    project.write("models/orders.toml", 'name = "orders"\n\n[[sources]]\ntable = "orders"\n\n'
                  '[strategy]\ntype = "full_refresh"\n\n[target]\nschema = "marts"\n'
                  'table = "orders"\n')
    project.write("models/orders.sql", "SELECT * FROM orders\n")
    compiled = project.strata("compile")
    assert compiled.returncode == 0 and compiled.json["diagnostics"] == [], compiled.json
    project.run()
    assert project.query("SELECT count(*) FROM marts.orders") == [(2,)]
    assert project.query("SELECT count(*) FROM main.orders") == [(2,)]


def test_an_incremental_model_reading_its_own_table_as_a_source_is_a_warning(project):
    project.create_orders(ROWS)
    project.add_model("stg_orders", "SELECT * FROM stg_orders WHERE @incremental_filter\n",
                      '[strategy]\ntype = "incremental"\nwatermark = "order_at"\n',
                      target=("raw", "stg_orders"))
    compiled = project.strata("compile")
    assert "W032" in [d["code"] for d in compiled.json["diagnostics"]], compiled.json
    assert compiled.json["errors"] == 0, compiled.json


def test_writing_a_table_another_model_reads_as_a_source_warns_unless_it_depends_on_it(project):
    project.create_orders(ROWS)
    project.add_model("reader", "SELECT * FROM stg_orders\n", FULL)
    project.add_model("stg_writer", "SELECT 1 AS x\n", FULL, sources=(),
                      target=("raw", "stg_orders"))
    compiled = project.strata("compile")
    warnings = [d for d in compiled.json["diagnostics"] if d["code"] == "W032"]
    assert len(warnings) == 1 and warnings[0]["severity"] == "warning", compiled.json
    assert "reader" in warnings[0]["message"] and "depends_on" in warnings[0]["hint"], warnings
    assert warnings[0]["file"] == "models/stg_writer.toml", warnings
    # The seed's shape: the reader depends on the model that builds its source.
    project.add_model("reader", "SELECT * FROM stg_orders\n", FULL, depends_on=["stg_writer"])
    compiled = project.strata("compile")
    assert "W032" not in [d["code"] for d in compiled.json["diagnostics"]], compiled.json


def test_a_models_dir_that_does_not_exist_is_a_config_error(project):
    project.create_orders(ROWS)
    project.add_model("stg_copy", "SELECT * FROM stg_orders\n", FULL)
    toml = (project.root / "strata.toml").read_text()
    (project.root / "strata.toml").write_text(
        toml.replace('name = "e2e"', 'name = "e2e"\nmodels_dir = "modles"'))
    for command in ("compile", "run"):
        error, = errors_of(project.strata(command))
        assert error["code"] == "Config" and "modles" in error["message"], error
        assert (error["file"], error["line"]) == ("strata.toml", 3), error
        assert error["hint"], error
    assert not (project.root / "modles").exists()


def test_a_sqlite_file_as_the_warehouse_is_refused_without_touching_it(project):
    project.add_model("one", "SELECT 1 AS x\n", FULL, sources=())
    project.warehouse_path.unlink(missing_ok=True)
    con = sqlite3.connect(project.warehouse_path)
    con.execute("CREATE TABLE t (a)")
    con.commit()
    con.close()
    before = project.warehouse_path.read_bytes()
    error, = errors_of(project.strata("run"))
    assert error["code"] == "Config" and "SQLite" in error["message"], error
    assert "download" not in error["message"], error
    assert project.warehouse_path.read_bytes() == before
