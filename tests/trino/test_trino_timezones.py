"""A time_interval model in America/New_York on a real Trino (Iceberg), issue 42.

Events every 20 minutes across New York's 2026 fall-back day, in a `timestamp(6) with time zone`
column; the model is day-partitioned in New York. Its table and each partition's row count equal
Trino's own `AT TIME ZONE` grouping, row for row, and the fall-back day lasts 25 hours.
"""
from __future__ import annotations

import json
import subprocess
import uuid

from trino_project import trino

NY = "America/New_York"
DAYS = ["2026-10-31", "2026-11-01", "2026-11-02"]


def test_a_new_york_daily_model_on_iceberg_equals_trinos_at_time_zone(trino_url, strata_bin,
                                                                       tmp_path):
    schema = "tz" + uuid.uuid4().hex[:10]
    trino(trino_url, f"CREATE SCHEMA iceberg.{schema}")
    trino(trino_url, f"CREATE TABLE iceberg.{schema}.events AS SELECT CAST(n AS bigint) AS id, "
                     "CAST(TIMESTAMP '2026-10-30 00:00:00 UTC' + n * INTERVAL '20' MINUTE AS "
                     "timestamp(6) with time zone) AS happened_at "
                     "FROM UNNEST(sequence(0, 72 * 5)) AS t(n)")
    root = tmp_path / "zoned"
    (root / "models").mkdir(parents=True)
    (root / "strata.toml").write_text(
        f'[project]\nname = "trino_tz"\n\n[warehouse]\ntype = "trino"\nurl = "{trino_url}"\n'
        f'user = "strata"\ncatalog = "iceberg"\nschema = "{schema}"\n')
    (root / "models" / "ny_events.toml").write_text(
        f'name = "ny_events"\n\n[[sources]]\ncatalog = "iceberg"\nschema = "{schema}"\n'
        'table = "events"\n\n[strategy]\ntype = "time_interval"\ntime_column = "happened_at"\n'
        f'granularity = "day"\ntimezone = "{NY}"\n\n[target]\ncatalog = "iceberg"\n'
        f'schema = "{schema}"\ntable = "ny_events"\n')
    (root / "models" / "ny_events.sql").write_text(
        "SELECT id, happened_at FROM events\n"
        "WHERE happened_at >= @start_date AND happened_at < @end_date\n")

    def strata(*args):
        done = subprocess.run([strata_bin, *args, "--project", str(root), "--output", "json"],
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
        return json.loads(done.stdout)

    report = strata("run", "--from", DAYS[0], "--to", DAYS[-1])
    assert report["status"] == "success", report

    local_day = f"CAST(happened_at AT TIME ZONE '{NY}' AS date)"
    in_days = ", ".join(f"DATE '{d}'" for d in DAYS)
    expected = sorted(r[0] for r in trino(
        trino_url, f"SELECT id FROM iceberg.{schema}.events WHERE {local_day} IN ({in_days})"))
    built = sorted(r[0] for r in trino(trino_url, f"SELECT id FROM iceberg.{schema}.ny_events"))
    assert built == expected and len(expected) == 72 * 3 + 3  # 25 hours on the fall-back day

    counts = dict(trino(trino_url, f"SELECT CAST({local_day} AS varchar), count(*) FROM "
                                   f"iceberg.{schema}.events GROUP BY 1"))
    partitions = {p["partition_key"]: p for p in strata("partitions", "ny_events")["partitions"]}
    assert sorted(partitions) == DAYS
    for day in DAYS:
        assert partitions[day]["row_count"] == counts[day], day
        assert partitions[day]["status"] == "Computed"
    assert partitions["2026-11-01"]["start"] == "2026-11-01T04:00:00Z"
    assert partitions["2026-11-01"]["end"] == "2026-11-02T05:00:00Z"

    # A rerun of the long day replaces exactly its window.
    strata("run", "--partition", "2026-11-01")
    assert sorted(r[0] for r in trino(
        trino_url, f"SELECT id FROM iceberg.{schema}.ny_events")) == expected
