#!/usr/bin/env python3
"""What a first Ray Data `map_batches(batch_format="pyarrow")` with
`bryo.fingerprint` costs: the 60 generated Python files of the pytest
suite's corpus (`bindings/python/tests/conftest.py`, seed 7) through one
local Ray instance (2 CPUs), checked against `bryo.fingerprint` on the
whole batch; prints the seconds of each step.

    python -m venv /tmp/ray-venv && /tmp/ray-venv/bin/pip install "ray[data]" pytest
    /tmp/ray-venv/bin/pip install --no-deps target/wheels-ci/bryo-*.whl
    time /tmp/ray-venv/bin/python bench/spark/ray-first-batch.py
"""

import sys
import time
from pathlib import Path

t0 = time.perf_counter()
import pyarrow as pa  # noqa: E402
import ray  # noqa: E402

import bryo  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python" / "tests"))
from conftest import make_corpus  # noqa: E402

docs = make_corpus(60, seed=7)
names = sorted(docs)
table = pa.table({"id": names, "text": [docs[n] for n in names]})
t1 = time.perf_counter()
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
t2 = time.perf_counter()


def postings(t: pa.Table) -> pa.Table:
    t = t.rename_columns(["doc_id" if c == "id" else c for c in t.column_names])
    p, _ = bryo.fingerprint(t, kind="code")
    return pa.Table.from_batches([p])


ds = ray.data.from_arrow(table).map_batches(postings, batch_format="pyarrow", batch_size=16)
got = pa.concat_tables(ray.get(ds.to_arrow_refs()))
t3 = time.perf_counter()
expected, _ = bryo.fingerprint(
    pa.RecordBatch.from_pydict({"doc_id": names, "bytes": [docs[n] for n in names]}), kind="code"
)
key = lambda t: sorted(zip(*(t.column(c).to_pylist() for c in ("hash", "doc_id", "position"))))  # noqa: E731
assert key(got) == key(expected), "Ray's postings differ from bryo.fingerprint's"
ray.shutdown()
t4 = time.perf_counter()
print(
    f"imports+corpus {t1 - t0:.1f} s, ray.init {t2 - t1:.1f} s, map_batches+collect {t3 - t2:.1f} s, "
    f"shutdown {t4 - t3:.1f} s, total {t4 - t0:.1f} s; {got.num_rows} postings = bryo.fingerprint's"
)
