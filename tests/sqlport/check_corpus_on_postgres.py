"""Runs every `answer` and `semantic` statement of tests/sqlport/corpus/*.sql on a real
PostgreSQL holding the capture's tables (README.md), each in its own psql, with its parameters
as literals, in a transaction rolled back: the hand-written BI tools' statements must be valid PostgreSQL. `refuse` (writes)
and `session` (cursors) statements are not run.

    python3 tests/sqlport/check_corpus_on_postgres.py postgresql://strata@127.0.0.1:PORT/strata
"""
import re
import subprocess
import sys
from pathlib import Path

HEADER = re.compile(r"-- (source|expect|param|golden)")


def main():
    dsn = sys.argv[1]
    failures = 0
    for path in sorted((Path(__file__).resolve().parent / "corpus").glob("*.sql")):
        for block in path.read_text().split("-- @statement\n")[1:]:
            lines = block.split("\n")
            body = 0
            while body < len(lines) and HEADER.match(lines[body]):
                body += 1
            expect = next(line for line in lines[:body] if line.startswith("-- expect: "))[11:]
            if expect not in ("answer", "semantic"):
                continue
            params = [None if line == "-- param-null" else line[len("-- param: "):]
                      for line in lines[:body] if line.startswith("-- param")]
            sql = "\n".join(lines[body:]).strip()
            bound = re.sub(r"\$(\d+)", lambda m: "NULL" if params[int(m.group(1)) - 1] is None
                           else "'" + params[int(m.group(1)) - 1].replace("'", "''") + "'", sql)
            release = re.match(r"RELEASE\s+(SAVEPOINT\s+)?(\S+)", bound, re.I)
            if release:  # its savepoint was set by the statement before, in another run
                bound = f"SAVEPOINT {release.group(2)};\n{bound}"
            # In a transaction (SAVEPOINT needs one), rolled back.
            done = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", dsn],
                                  input=f"BEGIN;\n{bound}\n;\nROLLBACK;\n",
                                  capture_output=True, text=True)
            if done.returncode != 0:
                failures += 1
                print(f"{path.name}: {done.stderr.strip()}\n{sql}\n")
    print("failures:", failures)
    sys.exit(1 if failures else 0)


main()
