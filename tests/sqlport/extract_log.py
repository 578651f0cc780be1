"""Turns a PostgreSQL server log written with log_statement = 'all' and
log_line_prefix = '%m [%a] ' into corpus files (tests/sqlport/corpus/<application>.sql, the
format README.md describes): one block per distinct statement each client application sent, in
order, with its bound parameters.

    python3 tests/sqlport/extract_log.py SERVER_LOG OUT_DIR 'SOURCE NOTE' [APP...]
"""
import re
import sys
from pathlib import Path

ENTRY = re.compile(r"^\d{4}-\d\d-\d\d [\d:.]+ UTC \[(.*?)\] (LOG|DETAIL|ERROR|STATEMENT):  (.*)$")
EXECUTE = re.compile(r"^(?:statement|execute [^:]*): (.*)$", re.S)
PARAM = re.compile(r"\$\d+ = (NULL|'(?:[^']|'')*')")
SETUP = ("CREATE ", "ALTER ")  # the capture's own setup statements


def entries(text):
    current = None
    for line in text.splitlines():
        match = ENTRY.match(line)
        if match:
            if current:
                yield current
            current = [match.group(1), match.group(2), match.group(3)]
        elif current and line.startswith("\t"):
            current[2] += "\n" + line[1:]
    if current:
        yield current


def main():
    log, out_dir, note = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
    apps = set(sys.argv[4:])
    statements = {}
    for app, level, message in entries(Path(log).read_text()):
        if apps and app not in apps:
            continue
        if level == "LOG":
            match = EXECUTE.match(message)
            if match and not match.group(1).lstrip().upper().startswith(SETUP):
                statements.setdefault(app, []).append([match.group(1).strip(), []])
        elif level == "DETAIL" and message.startswith("parameters:") and statements.get(app):
            values = PARAM.findall(message)
            statements[app][-1][1] = [None if v == "NULL" else v[1:-1].replace("''", "'")
                                      for v in values]
    for app, found in statements.items():
        seen = set()
        blocks = []
        for sql, params in found:
            key = (sql, tuple(params))
            if key in seen:
                continue
            seen.add(key)
            lines = ["-- @statement", f"-- source: {note}", "-- expect: answer"]
            lines += ["-- param-null" if p is None else f"-- param: {p}" for p in params]
            blocks.append("\n".join(lines) + "\n" + sql + "\n")
        (out_dir / f"{app}.sql").write_text(
            f"-- The SQL {app} sent to a real PostgreSQL 15, from its statement log "
            "(tests/sqlport/README.md).\n\n" + "\n".join(blocks))
        print(app, len(blocks))


main()
