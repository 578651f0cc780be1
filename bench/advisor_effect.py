"""The driver of bench/advisor_effect.sh (the rollup advisor's measured effect, issue 44).

  python3 bench/advisor_effect.py prepare PROJECT OUT_CORPUS   strip the model's rollups, set
                                                               [serve], write the corpus's cases
  python3 bench/advisor_effect.py replay PORT CORPUS ROUNDS OUT  send every case to /v1/query
  python3 bench/advisor_effect.py append ADVICE_JSON PROJECT   the advice's YAML into the model
  python3 bench/advisor_effect.py report BEFORE AFTER [AFTER...]  the figures

The corpus is the semantic oracle's (tests/e2e/semantic_corpus.py, build_corpus), only the cases
expected to answer rows ("rows"), each sent with its role's token (admin for the cases without a
role: the trusted CLI caller). Stdlib only (the duckdb package reads the data's dates in
`prepare`, as the oracle test does).
"""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import http.client
import json
import math
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))
SECRET_ENV = "STRATA_JWT_SECRET"


# ----- prepare ----------------------------------------------------------------------------------

def strip_rollups(model: str) -> str:
    start = model.index("\nrollups:")
    marker = "\n# Data roles" if "\n# Data roles" in model else "\ndata_roles:"
    end = model.index(marker)
    return model[:start + 1] + model[end + 1:]


def prepare(project: str, out: str) -> None:
    import duckdb
    from semantic_corpus import build_corpus
    from semantic_harness import Dates
    root = Path(project)
    model = root / "semantic" / "model.yml"
    text = strip_rollups(model.read_text())
    model.write_text(text)
    (root / "model.norollups.yml").write_text(text)  # outside semantic/: not loaded
    toml = (root / "strata.toml").read_text()
    assert toml.rstrip().splitlines()[-1].startswith("jwt_secret_env"), "[serve] is not last"
    # No result cache: the replay measures routing. No schedule: nothing builds behind our back.
    (root / "strata.toml").write_text(toml.rstrip("\n") + "\nresult_cache_bytes = 0\n"
                                      "refresh_check_seconds = 0\nrequest_timeout_ms = 600000\n"
                                      "max_result_rows = 1000000\n")
    connection = duckdb.connect(str(root / "warehouse.duckdb"), read_only=True)
    try:
        (first, last), = connection.execute(
            "SELECT min(order_at), max(order_at) FROM raw.orders").fetchall()
        (anchor,), = connection.execute(
            "SELECT order_at FROM raw.orders WHERE order_id = 600000").fetchall()
    finally:
        connection.close()
    dates = Dates(dt.datetime(first.year, first.month, 1),
                  dt.datetime(last.year, last.month, last.day) + dt.timedelta(days=1), anchor)
    cases = [{"id": c["id"], "role": c.get("role") or "admin", "query": c["query"],
              "limit_only": bool(c.get("limit_only"))}
             for c in build_corpus(dates) if c.get("expect", "rows") == "rows"]
    Path(out).write_text(json.dumps(cases))
    print(f"corpus: {len(cases)} cases expected to answer rows", file=sys.stderr)


# ----- replay -----------------------------------------------------------------------------------

def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(role: str, secret: str) -> str:
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64url(json.dumps({"role": role, "exp": int(time.time()) + 3600}).encode())
    signing_input = header + "." + claims
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + b64url(signature)


def replay(port: str, corpus: str, rounds: str, out: str) -> None:
    cases = json.loads(Path(corpus).read_text())
    secret = os.environ[SECRET_ENV]
    tokens = {}
    results = []  # per round: [{id, status, ms, server_ms, used, columns, rows}]
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=900)
    for round_ in range(int(rounds)):
        answers = []
        for case in cases:
            role = case["role"]
            if role not in tokens:
                tokens[role] = token(role, secret)
            body = json.dumps(case["query"])
            started = time.perf_counter()
            connection.request("POST", "/v1/query", body=body,
                               headers={"Authorization": "Bearer " + tokens[role],
                                        "Content-Type": "application/json"})
            response = connection.getresponse()
            data = response.read()
            elapsed = (time.perf_counter() - started) * 1000
            answer = json.loads(data) if data else {}
            entry = {"id": case["id"], "status": response.status, "ms": elapsed,
                     "limit_only": case["limit_only"]}
            if response.status == 200:
                meta = answer.get("meta", {})
                entry.update(server_ms=meta.get("duration_ms"),
                             used=meta.get("rollup", {}).get("used"),
                             columns=[c["name"] for c in answer["columns"]], rows=answer["rows"])
            else:
                entry["error"] = answer.get("error", {}).get("code")
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=900)
            answers.append(entry)
        total = sum(a["ms"] for a in answers)
        hits = sum(1 for a in answers if a.get("used"))
        print(f"  round {round_ + 1}: {len(answers)} queries, {hits} from rollups, "
              f"{total / 1000:.2f} s", file=sys.stderr)
        results.append(answers)
    connection.close()
    Path(out).write_text(json.dumps(results))


# ----- append -----------------------------------------------------------------------------------

def append(advice_path: str, project: str) -> None:
    advice = json.loads(Path(advice_path).read_text())
    yaml_text = advice["yaml"]
    assert yaml_text.startswith("rollups:\n"), yaml_text
    root = Path(project)
    model = root / "semantic" / "model.yml"
    text = (root / "model.norollups.yml").read_text()
    cut = text.index("\n# Data roles") + 1 if "\n# Data roles" in text else \
        text.index("\ndata_roles:") + 1
    model.write_text(text[:cut] + yaml_text.rstrip("\n") + "\n\n" + text[cut:])


def show_advice(advice_path: str) -> None:
    advice = json.loads(Path(advice_path).read_text())
    print(f"  {len(advice['rollups'])} rollups; {advice['live_queries']} live queries in the log "
          f"({advice['live_ms']} ms), {advice['skipped']} no rollup can answer")
    for r in advice["rollups"]:
        dims = [d if isinstance(d, str) else d["name"] + "." + d.get("grain", "raw")
                for d in r["dimensions"]]
        print(f"    {r['name']}: {r['entity']} by {', '.join(dims)}; "
              f"{len(r['measures'])} measures, "
              f"{len(r.get('sketches', []))} sketches; {r['queries']} queries, {r['live_ms']} ms, "
              f"roles {', '.join(r['roles'])}")


# ----- report -----------------------------------------------------------------------------------

def approximate_measures(project: Path) -> set[str]:
    """Measures whose rollup answer is an estimate from a sketch (count_distinct_approx and
    percentiles): allowed to differ from the live answer."""
    text = (project / "semantic" / "model.yml").read_text()
    names, entity = set(), None
    for line in text.splitlines():
        found = re.match(r"\s*- name: (\w+)\s*$", line)
        if found and re.match(r"  - name:", line):
            entity = found.group(1)
        measure = re.search(r"name: (\w+), agg: (count_distinct_approx|median|p\d+)\b", line)
        if measure and entity:
            names.add(f"{entity}.{measure.group(1)}")
    return names


def close(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=1e-7, abs_tol=1e-9)
    return a == b


def sort_key(row):
    return json.dumps([round(v, 4) if isinstance(v, float) else v for v in row], default=str)


def compare(before: dict, after: dict, approx: set[str]) -> str:
    """"equal", "approx" (only sketched measures differ) or "differ"."""
    if before["columns"] != after["columns"] or len(before["rows"]) != len(after["rows"]):
        return "differ"
    if before["limit_only"]:
        return "equal"  # a limit without order: any of the rows; the count is what is fixed
    exact = [i for i, name in enumerate(before["columns"]) if name not in approx]
    pairs = list(zip(sorted(before["rows"], key=sort_key), sorted(after["rows"], key=sort_key)))
    if all(close(a, b) for x, y in pairs for a, b in zip(x, y)):
        return "equal"
    # Sorted by every column, an estimate can move a row: re-pair by the exact columns alone.
    key = lambda row: json.dumps([row[i] for i in exact], default=str)  # noqa: E731
    left = sorted(before["rows"], key=key)
    right = sorted(after["rows"], key=key)
    if all(close(x[i], y[i]) for x, y in zip(left, right) for i in exact):
        return "approx" if len(exact) < len(before["columns"]) else "differ"
    return "differ"


def fastest(rounds: list[list[dict]]) -> dict:
    """Each query's fastest round (ms), by id."""
    return {a["id"]: min(r[k]["ms"] for r in rounds) for k, a in enumerate(rounds[0])}


def summary(rounds: list[list[dict]]) -> dict:
    answered = [a for a in rounds[0] if a["status"] == 200]
    return {
        "queries": len(rounds[0]),
        "ok": len(answered),
        "from_rollups": sum(1 for a in answered if a.get("used")),
        "rounds_ms": [sum(a["ms"] for a in r) for r in rounds],
        "server_ms": [sum(a.get("server_ms") or 0 for a in r) for r in rounds],
    }


def report(project: str, before_path: str, *after_paths: str) -> None:
    approx = approximate_measures(Path(project))
    before = json.loads(Path(before_path).read_text())
    base = summary(before)
    ok_ids = {a["id"] for a in before[0] if a["status"] == 200}
    refused = [f"{a['id']}: {a.get('error')}" for a in before[0] if a["status"] != 200]
    print(f"queries: {base['queries']} corpus cases expected to answer rows; "
          f"{base['ok']} answered 200 before ({', '.join(refused) or 'all'})")
    print(f"before (no rollups): {base['from_rollups']}/{base['ok']} from rollups "
          f"({100 * base['from_rollups'] / max(base['ok'], 1):.1f} %); total per round "
          + ", ".join(f"{ms / 1000:.2f} s" for ms in base["rounds_ms"])
          + " (server " + ", ".join(f"{ms / 1000:.2f} s" for ms in base["server_ms"]) + ")")
    by_id_before = {a["id"]: a for a in before[0]}
    for path in after_paths:
        label = Path(path).stem
        after = json.loads(Path(path).read_text())
        s = summary(after)
        ok_after = [a for a in after[0] if a["id"] in ok_ids]
        hits = sum(1 for a in ok_after if a.get("used") and a["status"] == 200)
        verdicts = {"equal": [], "approx": [], "differ": [], "failed": []}
        for a in ok_after:
            if a["status"] != 200:
                verdicts["failed"].append(a["id"])
                continue
            verdicts[compare(by_id_before[a["id"]], a, approx)].append(a["id"])
        ratios = [after_ms / before_ms
                  for after_ms, before_ms in zip(s["rounds_ms"], base["rounds_ms"])]
        total_before = sum(base["rounds_ms"])
        total_after = sum(s["rounds_ms"])
        print(f"after ({label}): {hits}/{len(ok_after)} from rollups "
              f"({100 * hits / max(len(ok_after), 1):.1f} %); total per round "
              + ", ".join(f"{ms / 1000:.2f} s" for ms in s["rounds_ms"])
              + " (server " + ", ".join(f"{ms / 1000:.2f} s" for ms in s["server_ms"]) + ")")
        print(f"  ratio after/before: per round " + ", ".join(f"{r:.3f}" for r in ratios)
              + f"; all rounds {total_after / total_before:.3f} "
              f"({total_after / 1000:.2f} / {total_before / 1000:.2f} s)")
        # Noise-robust: each query's fastest round (the machine is shared; a busy minute slows
        # whole rounds), summed; the queries still live after are the control (should be ~1).
        best_before = fastest(before)
        best_after = fastest(after)
        hit_set = {a["id"] for a in ok_after if a.get("used")}
        live_set = {a["id"] for a in ok_after if not a.get("used")}
        total_b = sum(best_before[i] for i in ok_ids)
        total_a = sum(best_after[i] for i in ok_ids)
        hits_b = sum(best_before[i] for i in hit_set)
        hits_a = sum(best_after[i] for i in hit_set)
        live_b = sum(best_before[i] for i in live_set)
        live_a = sum(best_after[i] for i in live_set)
        print(f"  fastest round per query, summed: {total_a / 1000:.2f} / {total_b / 1000:.2f} s = "
              f"{total_a / total_b:.3f}; the {len(hit_set)} from rollups {hits_a / 1000:.2f} / "
              f"{hits_b / 1000:.2f} s = {hits_a / max(hits_b, 1e-9):.3f}; "
              f"the {len(live_set)} still "
              f"live (control) {live_a / 1000:.2f} / {live_b / 1000:.2f} s = "
              f"{live_a / max(live_b, 1e-9):.3f}")
        hit_ids = {a["id"] for a in ok_after if a.get("used")}
        hit_before = sum(by_id_before[i]["ms"] for i in hit_ids)
        hit_after = sum(a["ms"] for a in after[0] if a["id"] in hit_ids)
        if hit_ids:
            print(f"  the {len(hit_ids)} queries answered from rollups: {hit_after / 1000:.2f} s "
                  f"after, {hit_before / 1000:.2f} s live before (round 1): "
                  f"{hit_after / max(hit_before, 1e-9):.3f}")
        print(f"  answers: {len(verdicts['equal'])} equal to before, "
              f"{len(verdicts['approx'])} differ "
              f"only in sketched measures ({', '.join(verdicts['approx']) or '-'}), "
              f"{len(verdicts['differ'])} differ ({', '.join(verdicts['differ']) or '-'}), "
              f"{len(verdicts['failed'])} failed ({', '.join(verdicts['failed']) or '-'})")
        # Per rollup, over the last round: its queries' time after against their live time before.
        last_before = {a["id"]: a for a in before[-1]}
        used = {}
        for a in after[-1]:
            if a.get("used") and a["id"] in ok_ids:
                name = a["used"] if isinstance(a["used"], str) else ",".join(a["used"])
                entry = used.setdefault(name, [0, 0.0, 0.0])
                entry[0] += 1
                entry[1] += a["ms"]
                entry[2] += last_before[a["id"]]["ms"]
        print("  answered by (last round: queries, ms after / ms live before):")
        for name, (count, ms_after, ms_before) in sorted(used.items(), key=lambda kv: -kv[1][2]):
            print(f"    {name}: {count}, {ms_after:.0f} / {ms_before:.0f} ms = "
                  f"{ms_after / max(ms_before, 1e-9):.2f}")


def main(argv: list[str]) -> None:
    command, *args = argv
    {"prepare": prepare, "replay": replay, "append": append, "advice": show_advice,
     "report": report}[command](*args)


if __name__ == "__main__":
    main(sys.argv[1:])
