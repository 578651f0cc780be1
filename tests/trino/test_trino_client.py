"""The Trino adapter's C++ tests against the session's real coordinator
(src/warehouse/trino/trino_live_test.cc): types, catalog lookups, a real syntax error, Hive
transactions, Iceberg's refusal of transactional writes, streaming, cancellation, session
properties."""
import os
import subprocess


def test_the_adapter_against_a_real_trino(trino_url, build_dir):
    binary = build_dir / "src" / "warehouse" / "trino_live_test"
    assert binary.exists(), f"{binary} was not built"
    completed = subprocess.run([str(binary)], env={**os.environ, "STRATA_TRINO_URL": trino_url},
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-2000:]
    assert "[  PASSED  ] 8 tests." in completed.stdout, completed.stdout[-3000:]
