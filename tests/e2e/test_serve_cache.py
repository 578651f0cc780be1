"""`strata serve`'s result cache (issue 12, "Lifecycle"), over real HTTP on 127.0.0.1: a repeated
rollup answer comes from the cache (header X-Strata-Cache and the access log say so) with the
same rows and meta; the same query written otherwise is the same entry; roles have their own
entries; a rebuild (through the hook, or by `strata rollups build` in another process) makes the
next answer a miss; live answers are never stored; result_cache_bytes = 0 turns it off.

The project is test_serve.py's, its rollup built by the control port (test_serve_control.py).
"""
from __future__ import annotations

import json
import subprocess
import time

from test_serve import bearer, without_duration
from test_serve_control import base, control, rebuild, wait_job  # noqa: F401 (fixtures)

# Answered by the rollup daily_orders (no build_range, no live tail).
HIT = {"measures": ["Order.revenue", "Order.order_count"], "dimensions": ["Order.status"],
       "order": [{"member": "Order.status"}]}
# The same query: other key order, other whitespace.
HIT_REWRITTEN = ('{"order":[{"member":"Order.status"}],\n  "dimensions":["Order.status"],'
                 '"measures":["Order.revenue","Order.order_count"]}')
# No rollup holds customers: live.
LIVE = {"measures": ["Order.customers"], "dimensions": ["Order.status"]}


def cache_of(answer) -> str:
    assert answer.status == 200, answer
    return answer.headers.get("X-Strata-Cache")


def built(server):
    assert wait_job(server, rebuild(server).json["job_id"])["state"] == "succeeded"


def test_a_repeated_rollup_answer_is_a_hit_with_the_same_rows_and_meta(control):
    server = control()
    built(server)
    first = server.query(HIT)
    assert cache_of(first) == "miss"
    assert first.json["meta"]["rollup"] == {"used": "daily_orders", "missed": []}
    again = server.request("POST", "/v1/query", HIT_REWRITTEN, bearer("admin"))
    assert cache_of(again) == "hit"
    assert without_duration(again.json) == without_duration(first.json)
    assert isinstance(again.json["meta"]["duration_ms"], (int, float))
    # Another role is its own entry, with its row filter.
    north = server.query(HIT, role="north_analyst")
    assert cache_of(north) == "miss"
    assert north.json["rows"] != first.json["rows"]
    assert cache_of(server.query(HIT, role="north_analyst")) == "hit"
    # Live answers are never stored.
    assert cache_of(server.query(LIVE)) == "bypass"
    assert cache_of(server.query(LIVE)) == "bypass"
    # The access log line is written after the answer and read from stderr by a thread: wait
    # for the sixth (a hang guard, not a timing threshold).
    deadline = time.monotonic() + 30
    while True:
        logged = [entry for entry in server.access_log() if entry["route"] == "/v1/query"]
        if len(logged) >= 6 or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [entry["cache"] for entry in logged] == ["miss", "hit", "miss", "hit", "bypass",
                                                    "bypass"]
    assert [entry["rollup"] for entry in logged[:2]] == ["daily_orders", "daily_orders"]


def test_a_rebuild_by_the_hook_or_another_process_invalidates_it(control, strata_bin):
    server = control()
    built(server)
    first = server.query(HIT)
    assert cache_of(first) == "miss"
    assert cache_of(server.query(HIT)) == "hit"
    built(server)
    after_hook = server.query(HIT)
    assert cache_of(after_hook) == "miss"
    assert without_duration(after_hook.json) == without_duration(first.json)
    assert cache_of(server.query(HIT)) == "hit"
    # A build by another process publishes a new manifest too.
    completed = subprocess.run([strata_bin, "rollups", "build", "--full", "--project",
                                str(server.root), "--output", "json"],
                               capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert json.loads(completed.stdout)["rollups"][0]["status"] == "built", completed.stdout
    assert cache_of(server.query(HIT)) == "miss"
    assert cache_of(server.query(HIT)) == "hit"


def test_result_cache_bytes_0_turns_it_off(control):
    server = control(result_cache_bytes=0)
    built(server)
    for _ in range(2):
        answer = server.query(HIT)
        assert cache_of(answer) == "off"
        assert answer.json["meta"]["rollup"] == {"used": "daily_orders", "missed": []}
