"""`strata query` and `strata meta` as a user drives them: inline and --file queries, the three
output formats, usage errors, semantic model errors with file and line, and `strata meta`.
The answers themselves are checked against hand-written SQL by test_semantic_*.py; this file
checks the command line around them. Uses the session's `strata init --example` project.
"""
from __future__ import annotations

import csv
import io
import json
import subprocess

import pytest

# Full tier only (scripts/test.sh; `--fast` skips it): generates the 1.2 M-order example to query.
pytestmark = pytest.mark.slow

pytest_plugins = ["semantic_harness"]

QUERY = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"]}


def strata(strata_bin, *args, cwd=None):
    return subprocess.run([strata_bin, *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def test_inline_and_file_queries_agree(strata_bin, semantic_example, tmp_path):
    root = str(semantic_example.project.root)
    path = tmp_path / "q.json"
    path.write_text(json.dumps(QUERY))
    inline = strata(strata_bin, "query", json.dumps(QUERY), "--project", root, "--output", "json")
    from_file = strata(strata_bin, "query", "--file", str(path), "--project", root, "--output", "json")
    assert inline.returncode == 0, inline.stderr
    assert from_file.returncode == 0, from_file.stderr
    body = json.loads(inline.stdout)
    assert list(body) == ["columns", "rows", "meta"]
    assert body["columns"] == [{"name": "Order.status", "type": "string"},
                               {"name": "Order.revenue", "type": "number"},
                               {"name": "Order.order_count", "type": "number"}]
    assert body["rows"] == json.loads(from_file.stdout)["rows"]
    assert {"rollup": "monthly_order_summary", "reason": "not_built"} in body["meta"]["rollup"]["missed"]
    assert isinstance(body["meta"]["sql"], str) and isinstance(body["meta"]["duration_ms"], (int, float))


def test_csv_and_table_outputs(strata_bin, semantic_example):
    root = str(semantic_example.project.root)
    as_json = json.loads(strata(strata_bin, "query", json.dumps(QUERY), "--project", root,
                                "--output", "json").stdout)
    as_csv = strata(strata_bin, "query", json.dumps(QUERY), "--project", root, "--output", "csv")
    assert as_csv.returncode == 0, as_csv.stderr
    rows = list(csv.reader(io.StringIO(as_csv.stdout)))
    assert rows[0] == ["Order.status", "Order.revenue", "Order.order_count"]
    assert len(rows) == 1 + len(as_json["rows"])
    assert [row[0] for row in rows[1:]] == [row[0] for row in as_json["rows"]]
    assert [float(row[1]) for row in rows[1:]] == [float(row[1]) for row in as_json["rows"]]
    table = strata(strata_bin, "query", json.dumps(QUERY), "--project", root, "--output", "table")
    assert table.returncode == 0, table.stderr
    assert table.stdout.splitlines()[0].split() == ["Order.status", "Order.revenue", "Order.order_count"]
    assert f"{len(as_json['rows'])} rows" in table.stdout


def test_usage_and_role_errors(strata_bin, semantic_example, tmp_path):
    root = str(semantic_example.project.root)
    path = tmp_path / "q.json"
    path.write_text(json.dumps(QUERY))
    both = strata(strata_bin, "query", json.dumps(QUERY), "--file", str(path), "--project", root,
                  "--output", "json")
    assert both.returncode == 1
    assert json.loads(both.stdout)["errors"][0]["code"] == "Usage"
    neither = strata(strata_bin, "query", "--project", root, "--output", "json")
    assert neither.returncode == 1
    denied = strata(strata_bin, "query", json.dumps({"measures": ["Ticket.ticket_count"]}),
                    "--role", "paid_orders_only", "--project", root, "--output", "json")
    assert denied.returncode == 1
    error = json.loads(denied.stdout)["errors"][0]
    assert error["code"] == "AccessDenied" and "Ticket" in error["message"]
    human = strata(strata_bin, "query", json.dumps({"measures": ["Order.revnue"]}), "--project", root,
                   "--output", "table")
    assert human.returncode == 1
    assert "error[QueryInvalid]" in human.stderr and 'did you mean "revenue"?' in human.stderr


def test_meta_lists_entities_members_and_rollups(strata_bin, semantic_example):
    root = str(semantic_example.project.root)
    meta = strata(strata_bin, "meta", "--project", root, "--output", "json")
    assert meta.returncode == 0, meta.stderr
    body = json.loads(meta.stdout)
    entities = {entity["name"]: entity for entity in body["entities"]}
    assert set(entities) == {"Order", "Customer", "Ticket"}
    order = entities["Order"]
    assert {"name": "order_date", "type": "time"} in order["dimensions"]
    assert {"name": "revenue", "agg": "sum"} in order["measures"]
    assert any(m["name"] == "average_order_value" for m in order["metrics"])
    assert any(r["name"] == "customer" and r["type"] == "many_to_one" for r in order["relationships"])
    assert [rollup["name"] for rollup in body["rollups"]] == ["monthly_order_summary"]
    assert body["fiscal_year_start_month"] == 4
    human = strata(strata_bin, "meta", "--project", root, "--output", "human")
    assert human.returncode == 0 and "monthly_order_summary" in human.stdout
    # model selection means nothing to meta: refused, not silently ignored
    selected = strata(strata_bin, "meta", "--project", root, "--model", "Order")
    assert selected.returncode == 1 and selected.stderr == "", selected
    # A usage error on a pipe: one {"errors": [...]} document on stdout.
    [error] = json.loads(selected.stdout)["errors"]
    assert error["code"] == "Usage" and "--model" in error["message"], error


def test_invalid_semantic_model_names_file_and_line(strata_bin, tmp_path):
    root = tmp_path / "p"
    (root / "semantic").mkdir(parents=True)
    (root / "models").mkdir()
    (root / "strata.toml").write_text('[project]\nname = "p"\n[warehouse]\ntype = "duckdb"\n'
                                      'path = "w.duckdb"\n')
    (root / "semantic" / "model.yml").write_text(
        "entities:\n"
        "  - name: Order\n"
        "    table: raw.orders\n"
        "    measures:\n"
        "      - { name: revenue, agg: summ, sql: amount }\n")
    result = strata(strata_bin, "meta", "--project", str(root), "--output", "json")
    assert result.returncode == 1
    error = json.loads(result.stdout)["errors"][0]
    assert error["code"] == "SemanticInvalid"
    assert error["file"] == "semantic/model.yml" and error["line"] == 5
    assert "revenue" in error["message"] and error["hint"] == 'did you mean "sum"?'
    query = strata(strata_bin, "query", json.dumps({"measures": ["Order.revenue"]}), "--project",
                   str(root), "--output", "json")
    assert query.returncode == 1
    assert json.loads(query.stdout)["errors"][0]["code"] == "SemanticInvalid"
