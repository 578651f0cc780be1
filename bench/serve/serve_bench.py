"""Rollup-hit queries over `strata serve` against one `strata query` process per query.

    python3 bench/serve/serve_bench.py build/src/cli/strata [--http 2000] [--cli 40] [--clients 4]

Builds the small project of tests/e2e/test_serve.py in a temp folder (600 orders, the rollup
daily_orders built), starts `strata serve --port 0` on it and times, for one rollup-hit query
(revenue by status, answered from daily_orders: meta.rollup.used is checked on every answer):

  http_1     --http requests one after another on one keep-alive connection
  http_N     the same number spread over --clients threads, one keep-alive connection each
  cli        --cli runs of `strata query --output json` (a process per query: start, load the
             project and model, open the engine, answer, exit)

It prints requests/s for each and the ratios http_1/cli and http_N/http_1. A baseline in the
same run, as every benchmark here (docs/benchmarks.md); absolute numbers on a shared 2-core
machine are noise. This is a latency/overhead comparison, not the issue's load test (that one
wants wrk and 16 clients; wrk is not installed on the build machine).
"""
from __future__ import annotations

import argparse
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent / "tests" / "e2e"))

import test_serve as fixture  # noqa: E402  (the e2e test's project builder and token signer)

QUERY = json.dumps({"measures": ["Order.revenue"], "dimensions": ["Order.status"]})


def make_project(strata: str, root: Path) -> None:
    (root / "semantic").mkdir()
    (root / "models").mkdir()
    (root / "semantic" / "model.yml").write_text(fixture.MODEL_YAML)
    fixture.write_toml(root, fixture.serve_toml(max_concurrent_queries=4, max_queued_queries=64))
    fixture.make_warehouse(root / "warehouse.duckdb")
    subprocess.run([strata, "rollups", "build", "--project", str(root), "--output", "json"],
                   check=True, capture_output=True, timeout=300)


def http_run(port: int, count: int, headers: dict) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        for _ in range(count):
            connection.request("POST", "/v1/query", body=QUERY, headers=headers)
            response = connection.getresponse()
            body = response.read()
            assert response.status == 200, body
            assert json.loads(body)["meta"]["rollup"]["used"] == "daily_orders", body
    finally:
        connection.close()


def timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("strata")
    parser.add_argument("--http", type=int, default=2000)
    parser.add_argument("--cli", type=int, default=40)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()
    strata = os.path.abspath(args.strata)
    with tempfile.TemporaryDirectory(prefix="serve_bench_") as folder:
        root = Path(folder)
        make_project(strata, root)
        server = fixture.Server(strata, root)
        try:
            headers = fixture.bearer("admin")
            http_run(server.port, 50, headers)  # warm: engine connections, manifests, page cache
            one = timed(lambda: http_run(server.port, args.http, headers))
            per_client = args.http // args.clients
            threads = [threading.Thread(target=http_run, args=(server.port, per_client, headers))
                       for _ in range(args.clients)]

            def run_threads():
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
            many = timed(run_threads)
        finally:
            server.stop()

        def cli_runs():
            for _ in range(args.cli):
                done = subprocess.run([strata, "query", QUERY, "--project", str(root), "--role",
                                       "admin", "--output", "json"], capture_output=True,
                                      check=True, timeout=60)
                assert json.loads(done.stdout)["meta"]["rollup"]["used"] == "daily_orders"
        cli = timed(cli_runs)
    http_1 = args.http / one
    http_n = per_client * args.clients / many
    cli_qps = args.cli / cli
    print(f"http_1   {http_1:10.1f} req/s  ({args.http} requests, 1 connection)")
    print(f"http_{args.clients}   {http_n:10.1f} req/s  ({per_client * args.clients} requests, "
          f"{args.clients} connections)")
    print(f"cli      {cli_qps:10.1f} req/s  ({args.cli} processes)")
    print(f"ratio http_1 / cli      {http_1 / cli_qps:8.1f}x")
    print(f"ratio http_{args.clients} / http_1   {http_n / http_1:8.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
