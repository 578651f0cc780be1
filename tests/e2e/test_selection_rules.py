"""first_partition bounds --missing discovery only; a first_partition in the future is a W041
warning, not a silent empty plan."""
from __future__ import annotations

from conftest import DAILY_SQL, mats_by_key, strategy_toml

ORDERS = [
    (1, 10, "5.00", "2026-04-07 10:00:00"),
    (2, 11, "7.25", "2026-04-08 09:00:00"),
]


def test_lookback_of_an_explicit_key_reaches_before_first_partition(project):
    project.create_orders(ORDERS)
    project.add_model("fct_daily_orders", DAILY_SQL,
                      strategy_toml("day", first_partition="2026-04-08"))
    report = project.run("--partition", "2026-04-08", "--lookback", "1").json
    assert sorted(mats_by_key(report)) == ["2026-04-07", "2026-04-08"]
    assert report["materializations"][0]["row_count"] == 1  # 2026-04-07's order is there


def test_first_partition_in_the_future_warns_under_missing(project):
    project.create_orders(ORDERS)
    project.add_model("fct_daily_orders", DAILY_SQL,
                      strategy_toml("day", first_partition="2999-01-01"))
    report = project.run("--missing").json
    assert report["materializations"] == []
    warnings = [w for w in report["warnings"] if w["code"] == "W041"]
    assert len(warnings) == 1, report["warnings"]
    assert warnings[0]["model"] == "fct_daily_orders"
    assert "2999-01-01" in warnings[0]["message"]
    human = project.strata("run", "--missing", output="human")
    assert human.returncode == 0, repr(human)
    assert "warning[W041]" in human.stderr and "2999-01-01" in human.stderr


def test_a_partition_flag_with_no_time_interval_model_selected_is_refused(project):
    project.create_orders(ORDERS)
    project.add_model("fct_daily_orders", DAILY_SQL, strategy_toml("day"))
    project.add_model("stg_copy", "SELECT * FROM stg_orders\n")
    for flags in (("--partition", "2026-04-07"), ("--from", "garbage", "--to", "x"),
                  ("--lookback", "2"), ("--missing",)):
        for command in ("run", "plan"):
            refused = project.strata(command, "--model", "stg_copy", *flags)
            assert refused.returncode == 1, repr(refused)
            [error] = refused.json["errors"]
            assert error["code"] == "Selection" and "stg_copy (full_refresh)" in error["message"]
            assert flags[0] in error["message"] and "without" in error["hint"], error
    assert not project.table_exists("marts", "stg_copy")  # nothing ran
    # beside a time_interval model the flags have partitions to select; stg_copy runs whole
    report = project.run("--from", "2026-04-07", "--to", "2026-04-08").json
    assert {m["model"] for m in report["materializations"]} == {"fct_daily_orders", "stg_copy"}
    project.run("--model", "stg_copy")  # and alone without them
