"""The rollup store as a user sees it (issue 10): any Parquet reader (pyarrow) opens every file
and counts the manifest's rows; a full hit answers with the warehouse file moved away; a changed
definition is not served until rebuilt; the store folder is ENGINE_ROLLUP_STORE_DIR, else
`[rollups] store_dir`, else <project>/.strata/rollups.
"""
from __future__ import annotations

import json
import shutil

import pytest

pytest.register_assert_rewrite("semantic_harness", "rollup_harness")

from rollup_corpus import BUILT, ROLLUPS, rollups_yaml
from rollup_harness import STORE_ENV, check_store_files, missed_of, route_of
from semantic_harness import compare_answer

pytest_plugins = ["semantic_harness", "rollup_harness"]

# Full tier only (scripts/test.sh; `--fast` skips it): every test here reads the 1.2 M-order
# example (rollup_duckdb and small_warehouse start from `strata init --example`, as
# test_example.py does) and builds the corpus's rollups, about a minute of setup on 2 cores,
# which would take the fast tier past its 2 minutes.
pytestmark = pytest.mark.slow


def test_pyarrow_reads_every_file(rollup_duckdb):
    """Every Parquet file of every manifest: pyarrow reads it, its rows are the manifest's, its
    columns are the manifest's; sketch columns have the documented types; files are sorted by
    sort_by (docs/rollup-store.md)."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    project = rollup_duckdb.project
    for name in BUILT:
        manifest = check_store_files(project, name)
        definition = next(r for r in ROLLUPS if r["name"] == name)
        columns = {c["name"]: c for c in manifest["columns"]}
        for path, grain in definition["dimensions"]:
            assert columns[path]["role"] == "dimension" and columns[path]["source"] == path
        for measure in definition["measures"]:
            stored = [c for c in manifest["columns"] if c["source"] == measure]
            assert stored and all(c["role"] == "measure" for c in stored), (name, measure)
        schema = pq.read_schema(project.store / name / manifest["files"][0]["path"])
        for column in manifest["columns"]:
            field = schema.field(column["name"])
            if column["part"] == "hll":
                assert pa.types.is_binary(field.type) or pa.types.is_large_binary(field.type), field
            elif column["part"] == "values":
                assert pa.types.is_list(field.type), field
                item = field.type.value_type
                assert pa.types.is_struct(item) and \
                    [item.field(i).name for i in range(item.num_fields)] == ["value", "count"], field
                assert pa.types.is_float64(item.field(0).type) and pa.types.is_int64(item.field(1).type)
            elif column["role"] == "dimension" and dict(definition["dimensions"]).get(column["source"]):
                # A time bucket: the type the manifest declares (docs/rollup-store.md says
                # TIMESTAMP; day and coarser buckets are written as DATE).
                grain = dict(definition["dimensions"])[column["source"]]
                if column["type"] == "DATE":
                    assert grain != "hour" and pa.types.is_date32(field.type), (name, column, field)
                else:
                    assert column["type"] == "TIMESTAMP" and pa.types.is_timestamp(field.type), \
                        (name, column, field)
        if definition.get("sort_by"):
            for entry in manifest["files"]:
                table = pq.read_table(project.store / name / entry["path"], columns=definition["sort_by"])
                rows = list(zip(*(table.column(c).to_pylist() for c in definition["sort_by"])))
                key = [tuple((v is None, v) for v in row) for row in rows]
                assert key == sorted(key), f"{name}/{entry['path']} is not sorted by {definition['sort_by']}"
    # HLL and value-count cells hold data (not all empty).
    manifest = project.manifest("r_daily")
    table = pq.read_table(project.store / "r_daily" / manifest["files"][3]["path"])
    assert all(cell for cell in table.column("customer_id_approx__hll").to_pylist())
    values = table.column("median_amount__values").to_pylist()
    assert sum(item["count"] for cell in values for item in cell) == sum(table.column("order_count").to_pylist())


FULL_HITS = ["total_by_region", "total_by_status", "distinct_segment_region", "join_region",
             "ticket_region_total", "grain_quarter_status_0", "grain_fiscal_year_status_1",
             "approx_unsketched_exact"]
MISS = "dim_loaded_at"


def test_full_hit_without_the_warehouse(rollup_duckdb, rollup_duckdb_cases, tmp_path):
    """Build, then move the warehouse file away: full-hit queries answer the same rows (a hit
    never opens the warehouse); a query that needs the warehouse fails with its error (exit 1)."""
    source = rollup_duckdb.project
    root = tmp_path / "away"
    root.mkdir()
    shutil.copyfile(_warehouse_of(source), root / "warehouse.duckdb")
    from rollup_harness import duckdb_toml, write_project
    project = write_project(root / "p", source.bin, duckdb_toml(root / "warehouse.duckdb"),
                            (source.root / "semantic" / "model.yml").read_text(),
                            (source.root / "semantic" / "rollups.yml").read_text())
    project.build("r_segment_total", "r_quarterly", "r_monthly_status", "t_region", "r_daily")
    before = {}
    for case_id in FULL_HITS + [MISS]:
        case = rollup_duckdb_cases[case_id]
        result = project.query(case["query"])
        compare_answer(case, result, rollup_duckdb.oracle.rows(case["sql"]))
        before[case_id] = result.body["rows"]
    (root / "warehouse.duckdb").rename(root / "moved.duckdb")
    for case_id in FULL_HITS:
        case = rollup_duckdb_cases[case_id]
        result = project.query(case["query"])
        assert result.ok, f"[{case_id}] a full hit needs no warehouse\n{result!r}"
        assert route_of(result).get("used") in case["expected_used"], route_of(result)
        assert result.body["rows"] == before[case_id], case_id
    result = project.query(rollup_duckdb_cases[MISS]["query"])
    assert result.returncode == 1 and result.error_codes(), repr(result)
    assert not (root / "warehouse.duckdb").exists(), "strata created a warehouse file"


def _warehouse_of(project) -> str:
    text = (project.root / "strata.toml").read_text()
    return text.split('path = "', 1)[1].split('"', 1)[0]


def test_definition_change_is_not_served(rollup_duckdb, rollup_duckdb_cases, tmp_path):
    """A changed definition (a stored member's SQL, the rollup's measures) is not_built until
    rebuilt; `rollups status` says definition_changed; a comment-only edit changes nothing."""
    project = rollup_duckdb.project.copy(tmp_path / "changed")
    exact = rollup_duckdb_cases["distinct_exact_match"]      # served by r_monthly_status
    region = rollup_duckdb_cases["total_by_region"]          # served by r_segment_total
    assert route_of(project.query(exact["query"]))["used"] == "r_monthly_status"

    rollups = project.root / "semantic" / "rollups.yml"
    rollups.write_text("# a comment\n" + rollups.read_text().replace("\n", "\n\n", 3))
    assert route_of(project.query(exact["query"])).get("used") == "r_monthly_status"

    edited = [dict(r) for r in ROLLUPS]
    for r in edited:
        if r["name"] == "r_monthly_status":
            r["measures"] = r["measures"] + ["min_amount"]
    rollups.write_text(rollups_yaml(edited))
    states = {r["rollup"]: r["state"] for r in project.status()["rollups"]}
    assert states["r_monthly_status"] == "definition_changed" and states["r_daily"] == "built", states
    result = project.query(exact["query"])
    compare_answer(exact, result, rollup_duckdb.oracle.rows(exact["sql"]))
    assert missed_of(result)["r_monthly_status"] == "not_built", route_of(result)

    model = project.root / "semantic" / "model.yml"
    original = model.read_text()
    assert "{ name: revenue, agg: sum, sql: amount }" in original
    model.write_text(original.replace("{ name: revenue, agg: sum, sql: amount }",
                                      "{ name: revenue, agg: sum, sql: amount * 1 }"))
    states = {r["rollup"]: r["state"] for r in project.status()["rollups"]}
    storing_revenue = {r["name"] for r in ROLLUPS if "revenue" in r["measures"] and r["name"] in BUILT}
    for name in BUILT:
        want = "definition_changed" if name in storing_revenue or name == "r_monthly_status" else "built"
        assert states[name] == want, (name, states)
    result = project.query(region["query"])
    compare_answer(region, result, rollup_duckdb.oracle.rows(region["sql"]))
    # order_count alone: r_segment_total stores revenue too, so its whole definition changed.
    assert missed_of(result)["r_segment_total"] == "not_built", route_of(result)

    project.build("r_segment_total", "r_monthly_status")
    assert route_of(project.query(region["query"])).get("used") == "r_segment_total"
    result = project.query(exact["query"])
    compare_answer(exact, result, rollup_duckdb.oracle.rows(exact["sql"]))
    assert route_of(result).get("used") == "r_monthly_status"


SMALL = """rollups:
  - name: small_region
    entity: Ticket
    dimensions: [customer.region]
    measures: [ticket_count]
"""
SMALL_QUERY = {"measures": ["Ticket.ticket_count"], "dimensions": ["Customer.region"]}


def test_store_folder_resolution(small_warehouse, strata_bin, tmp_path):
    """ENGINE_ROLLUP_STORE_DIR, else [rollups] store_dir (relative to the project), else
    <project>/.strata/rollups; the query reads the same folder the build wrote."""
    default = small_warehouse.project(tmp_path / "default", strata_bin, SMALL)
    default.build()
    assert (default.root / ".strata" / "rollups" / "small_region" / "manifest.json").is_file()
    assert default.status()["store"] == str(default.root / ".strata" / "rollups")
    assert route_of(default.query(SMALL_QUERY)).get("used") == "small_region"

    configured = small_warehouse.project(tmp_path / "configured", strata_bin, SMALL,
                                         extra_toml='\n[rollups]\nstore_dir = "pre_aggs"\n')
    configured.build()
    assert (configured.root / "pre_aggs" / "small_region" / "manifest.json").is_file()
    assert not (configured.root / ".strata" / "rollups").exists()
    assert route_of(configured.query(SMALL_QUERY)).get("used") == "small_region"

    elsewhere = tmp_path / "env_store"
    env = {STORE_ENV: str(elsewhere)}
    configured.env = env
    configured.build()
    assert (elsewhere / "small_region" / "manifest.json").is_file()
    assert configured.status()["store"] == str(elsewhere)
    assert route_of(configured.query(SMALL_QUERY)).get("used") == "small_region"
    empty = tmp_path / "empty_store"
    empty.mkdir()
    result = configured.query(SMALL_QUERY, env={STORE_ENV: str(empty)})
    assert result.ok and missed_of(result) == {"small_region": "not_built"}, repr(result)
    status = configured.strata("rollups", "status", env={STORE_ENV: str(empty)})
    assert status.returncode == 0, status.stderr
    states = {r["rollup"]: r["state"] for r in json.loads(status.stdout)["rollups"]}
    assert states == {"small_region": "not_built"}, states


MARKED = """
rollups:
  - name: small_marker
    entity: Ticket
    dimensions: [customer.region]
    measures: [ticket_count]
    refresh: { every: 1h, when_changed: opened_date }
  - name: small_manual
    entity: Ticket
    dimensions: [priority]
    measures: [ticket_count]
    refresh: { manual: true }
"""


def test_unchanged_marker_skips_and_refresh_builds_what_is_due(small_warehouse, strata_bin,
                                                                tmp_path):
    """A plain build whose freshness marker did not move is skipped and says so (status, reason,
    marker, the version in force); `rollups refresh` builds only what refresh.every says is due
    and a manual rollup only when named; a moved marker builds."""
    import duckdb
    project = small_warehouse.project(tmp_path / "marked", strata_bin, MARKED, copy_warehouse=True)
    first = {r["rollup"]: r for r in project.build()["rollups"]}
    assert first["small_marker"]["status"] == "built" and first["small_marker"]["marker"]
    assert first["small_manual"]["status"] == "built"

    again = {r["rollup"]: r for r in project.build()["rollups"]}
    marker = again["small_marker"]
    assert marker["status"] == "skipped", marker
    assert "freshness marker did not move" in marker["reason"], marker
    assert marker["marker"] == first["small_marker"]["marker"]
    assert marker["version"] == first["small_marker"]["version"] == \
        project.manifest("small_marker")["version"]
    assert again["small_manual"]["status"] == "built"  # no marker: a build always builds

    completed = project.strata("rollups", "refresh")
    assert completed.returncode == 0, completed.stderr
    refresh = {r["rollup"]: r for r in json.loads(completed.stdout)["rollups"]}
    assert refresh["small_marker"]["status"] == "skipped" and \
        "not due until" in refresh["small_marker"]["reason"], refresh
    assert refresh["small_manual"]["status"] == "skipped" and \
        "manual" in refresh["small_manual"]["reason"], refresh
    human = project.strata("rollups", "refresh", output="human")
    assert human.returncode == 0 and "not due until" in human.stdout, human.stdout

    warehouse = project.root / "warehouse.duckdb"
    with duckdb.connect(str(warehouse)) as con:
        con.execute("INSERT INTO raw.tickets SELECT * REPLACE (ticket_id + 100000000 AS ticket_id, "
                    "opened_at + INTERVAL 1 DAY AS opened_at) FROM raw.tickets "
                    "ORDER BY opened_at DESC NULLS LAST LIMIT 1")
    completed = project.strata("rollups", "refresh", "--rollup", "small_marker", "--rollup",
                               "small_manual")
    assert completed.returncode == 0, completed.stderr
    named = {r["rollup"]: r for r in json.loads(completed.stdout)["rollups"]}
    assert named["small_marker"]["status"] == "built", named  # named: due; the marker moved
    assert named["small_marker"]["marker"] != first["small_marker"]["marker"]
    assert named["small_marker"]["version"] > first["small_marker"]["version"]
    assert named["small_manual"]["status"] == "built", named
    assert route_of(project.query(SMALL_QUERY)).get("used") == "small_marker"
