"""example/definitions.py loads on the example project and validates as a code location."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import dagster as dg

EXAMPLE = Path(__file__).resolve().parent.parent / "example" / "definitions.py"


def test_example_definitions_load(example_template, strata_bin, monkeypatch):
    monkeypatch.setenv("STRATA_PROJECT_DIR", str(example_template))
    monkeypatch.setenv("STRATA_BIN", strata_bin)
    spec = importlib.util.spec_from_file_location("strata_example_definitions", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    defs: dg.Definitions = module.defs
    dg.Definitions.validate_loadable(defs)
    keys = {k.to_user_string() for k in defs.resolve_asset_graph().get_all_asset_keys()}
    assert "warehouse/marts/fct_daily_orders" in keys and "raw/orders" in keys
    assert defs.resolve_job_def("strata_daily") is not None
    assert defs.resolve_sensor_def("strata_ledger_sensor") is not None
