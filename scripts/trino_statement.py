#!/usr/bin/env python3
"""Runs one SQL statement on a Trino server through its REST protocol and prints the rows.

    scripts/trino_statement.py URL SQL [--json]

Posts SQL to URL/v1/statement as user `strata`, follows nextUri to the end and prints each row
tab-separated (or, with --json, the list of rows as JSON). Exits 1 with Trino's error name and
message on a failed query, 2 on a usage error, 3 when the server cannot be reached. A statement
that failed before it ran (NO_NODES_AVAILABLE, SERVER_STARTING_UP) is submitted again for 30 s.
Standard library only: the test setup uses it before anything else is installed.
"""

import json
import sys
import time
import urllib.error
import urllib.request

HEADERS = {"X-Trino-User": "strata", "X-Trino-Source": "strata-tests", "X-Trino-Time-Zone": "UTC"}


def request(url, data=None):
    req = urllib.request.Request(url, data=data, headers=HEADERS, method="POST" if data else "GET")
    for attempt in range(20):
        try:
            with urllib.request.urlopen(req, timeout=60) as response:
                return json.loads(response.read())
        except urllib.error.HTTPError as error:
            if error.code in (502, 503) and attempt < 19:
                time.sleep(0.1 * (attempt + 1))
                continue
            raise


# Errors Trino raises before a statement has run anything: submitting it again is safe.
NEVER_STARTED = ("NO_NODES_AVAILABLE", "SERVER_STARTING_UP")


def run_once(base, sql):
    page = request(base.rstrip("/") + "/v1/statement", sql.encode())
    rows = []
    while True:
        if "error" in page:
            error = page["error"]
            raise RuntimeError(f"{error.get('errorName')}: {error.get('message')}")
        rows.extend(page.get("data") or [])
        if "nextUri" not in page:
            return rows
        page = request(page["nextUri"])


def run(base, sql):
    """Runs sql and returns its rows; resubmits it for up to 30 s while it never started."""
    deadline = time.monotonic() + 30
    while True:
        try:
            return run_once(base, sql)
        except RuntimeError as error:
            if not str(error).startswith(NEVER_STARTED) or time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def main(argv):
    if len(argv) not in (3, 4) or (len(argv) == 4 and argv[3] != "--json"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        rows = run(argv[1], argv[2])
    except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
        print(f"trino_statement: cannot reach {argv[1]}: {error}", file=sys.stderr)
        return 3
    except RuntimeError as error:
        print(f"trino_statement: {error}", file=sys.stderr)
        return 1
    if len(argv) == 4:
        print(json.dumps(rows))
    else:
        for row in rows:
            print("\t".join("NULL" if v is None else str(v) for v in row))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
