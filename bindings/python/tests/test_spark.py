"""The Spark job against `bryo compare` on the same documents (local[2]).

Marked `spark`: `pytest -m spark` runs these alone, `-m "not spark"` skips
them (they need Java and start a JVM)."""

from __future__ import annotations

import json
import sys

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from conftest import arrow_pairs, cli_pairs, run_cli

pytestmark = pytest.mark.spark


@pytest.fixture(scope="module")
def spark():
    import os

    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    session = (
        # Two cores; a failed task is tried up to twice.
        SparkSession.builder.master("local[2,2]")
        .appName("bryo-tests")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.ui.showConsoleProgress", "false")
        # One JVM for the whole module: room for the archive and base
        # documents the driver holds.
        .config("spark.driver.memory", "2g")
        .getOrCreate()
    )
    yield session
    session.stop()


def _args(*flags, **kw):
    from bryo.spark import parser

    argv = list(flags)
    for key, value in kw.items():
        if value is None:
            continue
        argv += [f"--{key.replace('_', '-')}", str(value)]
    return parser().parse_args(argv)


def _write_parquet(path, docs, row_group_size=8):
    names = sorted(docs)
    table = pa.table(
        {"id": names, "text": [docs[n] for n in names]},
        schema=pa.schema([("id", pa.string()), ("text", pa.binary())]),
    )
    pq.write_table(table, path, row_group_size=row_group_size)


def _read(path):
    return pq.read_table(path).to_pylist()


def _rule(report):
    """The limits the common-code rule took, as `run.json` reports them."""
    return {
        key: report["stats"].get(key) for key in ("template_above", "seed_limit", "discount_below")
    }


def test_job_normalizes_java_by_default_as_bryo_compare(spark, tmp_path):
    """Without --normalize or --no-normalize the job normalizes Java, C and
    C++ as `bryo compare` does; --no-normalize is the CLI's."""
    from bryo.spark import run
    from conftest import make_java_corpus, write_corpus

    docs = make_java_corpus()
    write_corpus(tmp_path, docs)
    src = tmp_path / "docs.parquet"
    _write_parquet(src, docs)
    for flags, normalize in (((), "auto"), (("--no-normalize",), False)):
        out = tmp_path / f"out{len(flags)}"
        record = run(spark, _args(*flags, input=src, output=out, kind="code", pairs=0, partitions=2))
        expected = cli_pairs(run_cli(tmp_path, *flags, "-n", "0"))
        got = sorted(_read(out / "pairs.parquet"), key=lambda r: r["rank"])
        assert arrow_pairs(got) == expected and len(expected) >= 3
        assert record["options"]["normalize"] == normalize
    assert cli_pairs(run_cli(tmp_path, "-n", "0")) != cli_pairs(run_cli(tmp_path, "--no-normalize", "-n", "0"))


@pytest.mark.parametrize(
    "m,n,flags",
    [
        (None, 250, ()),
        (10, 250, ()),
        (5, 0, ()),
        (None, 6, ()),
        (None, 0, ("--no-discount",)),
        (None, 0, ("--normalize", "--normalization", "verbatim")),
    ],
)
def test_job_equals_bryo_compare(spark, corpus, tmp_path, m, n, flags):
    """Pairs, scores and fragments equal `bryo compare [-m M] -n N` on a
    corpus spread over eight partitions — without -m under the rarity rule
    (a passage in 60% of the documents is template code) with its rarity
    discount, which changes similarities on this corpus, or without it
    (--no-discount on both sides); with -m under MOSS's; skipped documents
    keep their reasons."""
    from bryo.spark import run

    root, docs = corpus
    src = tmp_path / "docs.parquet"
    _write_parquet(src, docs)
    out = tmp_path / "out"
    record = run(
        spark,
        _args(*flags, input=src, output=out, kind="code", max_submissions=m, pairs=n, partitions=8),
    )
    cli_args = [*flags, *([] if m is None else ["-m", str(m)]), "-n", str(n)]
    report = run_cli(root, *cli_args)
    expected = cli_pairs(report)
    assert len(expected) > 5
    got = sorted(_read(out / "pairs.parquet"), key=lambda r: r["rank"])
    assert arrow_pairs(got) == expected
    assert record["counts"]["excluded_hashes"] > 0
    assert record["counts"]["pairs"] == len(expected)
    assert record["counts"]["candidate_pairs"] == report["stats"]["candidate_pairs"]
    assert record["rule"] == _rule(report)
    if "--normalize" in flags:
        # The front-end options change what is found.
        assert record["options"]["parser"] == "tree-sitter" and record["options"]["normalize"]
        assert expected != cli_pairs(run_cli(root, "-n", str(n)))
    elif m is None:
        assert record["rule"]["template_above"] is not None
        # The rarity discount applies to this corpus unless turned off, and
        # changes the similarity (only) of some pairs.
        discounted = not flags
        assert (record["rule"]["discount_below"] is not None) == discounted
        assert record["options"]["discount"] == discounted
        other = cli_pairs(run_cli(root, *(["--no-discount"] if discounted else []), "-n", str(n)))
        differ = [(e, o) for e, o in zip(expected, other) if e[2] != o[2]]
        assert differ and all(e[:2] == o[:2] and e[3:] == o[3:] for e, o in differ)

    documents = {d["doc_id"]: d for d in _read(out / "documents.parquet")}
    assert set(documents) == set(docs)  # every input document, none dropped
    skipped = {s["path"]: s["reason"] for s in report["skipped"]}
    assert {d: r["reason"] for d, r in documents.items() if not r["ok"]} == skipped
    # The passages of a document are the union of its fragments' bytes.
    for d, row in documents.items():
        spans = sorted(
            [(f["a_byte_start"], f["a_byte_end"]) for p in got if p["doc_a"] == d for f in p["fragments"]]
            + [(f["b_byte_start"], f["b_byte_end"]) for p in got if p["doc_b"] == d for f in p["fragments"]]
        )
        covered = set()
        for s, e in spans:
            covered.update(range(s, e))
        got_bytes = sum(p["byte_end"] - p["byte_start"] for p in row["passages"] or [])
        assert got_bytes == len(covered), d
        if row["bytes"]:
            assert row["copied_share"] == pytest.approx(len(covered) / row["bytes"])


def test_rarity_seed_limit_when_the_budget_cuts(spark, tmp_path):
    """A passage in 45% of 200 text documents: not template code, but its
    pairs exceed the records budget, so the seed limit cuts and the passage
    pairs only a sample of its documents. The limit, the candidate pairs
    (the sample) and the reported pairs equal `bryo compare`'s — fragments
    included: pairs found by a passage of their own also share the wide
    one, which seeds them only where the sample paired them, and the job
    seeds each pair it compares alone by its records' hashes, as the CLI
    does (compared alone by every shared hash, some of these pairs gain the
    wide passage)."""
    from bryo.spark import run

    from conftest import make_wide_corpus, write_corpus

    docs = make_wide_corpus(200, seed=11)
    root = tmp_path / "corpus"
    write_corpus(root, docs)
    src = tmp_path / "docs.parquet"
    _write_parquet(src, docs, row_group_size=32)
    out = tmp_path / "out"
    record = run(spark, _args(input=src, output=out, kind="text", partitions=6))
    report = run_cli(root)
    assert report["stats"].get("seed_limit") is not None  # the budget did cut
    assert record["rule"] == _rule(report)
    assert record["rule"]["seed_limit"] < record["counts"]["widest_hash_documents"]
    assert record["counts"]["candidate_pairs"] == report["stats"]["candidate_pairs"]
    got = sorted(_read(out / "pairs.parquet"), key=lambda r: r["rank"])
    assert arrow_pairs(got) == cli_pairs(report)
    # The seeds matter: compared alone by every shared hash, some reported
    # pair gets more fragments than the whole run gives it.
    import bryo

    gained = 0
    for p in got:
        pair = {n: docs[n] for n in (p["doc_a"], p["doc_b"])}
        batch = pa.RecordBatch.from_pydict({"doc_id": list(pair), "bytes": list(pair.values())})
        alone, _ = bryo.compare(
            batch, pairs=pa.RecordBatch.from_pydict({"doc_a": [p["doc_a"]], "doc_b": [p["doc_b"]]}), kind="text"
        )
        gained += len(alone.to_pylist()[0]["fragments"]) > len(p["fragments"])
    assert gained > 0


def test_merged_fragments_list_their_parts(spark, tmp_path):
    """Prose: copies of a passage with a word changed here and there are
    merged into one fragment; its parts (byte ranges and lines on both
    sides) equal the CLI's."""
    from bryo.spark import run

    from conftest import make_prose_corpus, write_corpus

    docs = make_prose_corpus(12, seed=5)
    root = tmp_path / "corpus"
    write_corpus(root, docs)
    src = tmp_path / "docs.parquet"
    _write_parquet(src, docs, row_group_size=3)
    out = tmp_path / "out"
    run(spark, _args(input=src, output=out, kind="text", partitions=4))
    report = run_cli(root)
    expected = cli_pairs(report)
    got = sorted(_read(out / "pairs.parquet"), key=lambda r: r["rank"])
    assert arrow_pairs(got) == expected
    parts = [f["parts"] for p in got for f in p["fragments"]]
    assert any(len(p) >= 2 for p in parts)  # merged fragments were listed


def test_jsonl_input_and_bad_input(spark, tmp_path):
    from bryo.spark import InputError, run

    good = tmp_path / "docs.jsonl"
    body = "def f(a, b):\n" + "".join(f"    x{i} = a * {i} + b\n" for i in range(40))
    good.write_text(
        "\n".join(json.dumps({"id": f"{i}.py", "text": body if i < 3 else "y = 1\n"}) for i in range(5))
    )
    record = run(spark, _args(input=good, output=tmp_path / "o1", language="python"))
    # The three copies pairwise, and the two one-liners, identical once
    # normalized (as `bryo compare` reports them).
    pairs = {(r["doc_a"], r["doc_b"]): r for r in _read(tmp_path / "o1" / "pairs.parquet")}
    assert set(pairs) == {("0.py", "1.py"), ("0.py", "2.py"), ("1.py", "2.py"), ("3.py", "4.py")}
    assert pairs[("3.py", "4.py")]["identical"] and record["counts"]["pairs"] == 4

    missing = tmp_path / "missing.jsonl"
    missing.write_text(json.dumps({"id": "a", "body": "x"}) + "\n")
    with pytest.raises(InputError, match="missing column text"):
        run(spark, _args(input=missing, output=tmp_path / "o2", language="python"))

    broken = tmp_path / "broken.jsonl"
    broken.write_text(json.dumps({"id": "a", "text": "x"}) + "\n{not json\n")
    with pytest.raises(InputError, match="malformed"):
        run(spark, _args(input=broken, output=tmp_path / "o3", language="python"))

    dup = tmp_path / "dup.jsonl"
    dup.write_text("\n".join(json.dumps({"id": "a", "text": "x"}) for _ in range(2)))
    with pytest.raises(InputError, match="duplicate ids"):
        run(spark, _args(input=dup, output=tmp_path / "o4", language="python"))


def test_a_worker_that_dies_is_retried_without_duplicates(spark, corpus, tmp_path, monkeypatch):
    """The Python worker of the first fingerprint task exits mid-task; Spark
    runs the task again and the results are still exactly the CLI's."""
    from pyspark import cloudpickle

    import bryo.spark as job

    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    original = job._fingerprint_partitions

    def flaky(options):
        inner = original(options)

        def run(batches):
            import os

            from pyspark import TaskContext

            ctx = TaskContext.get()
            if ctx.partitionId() == 0 and ctx.attemptNumber() == 0:
                os._exit(3)  # the worker dies, its output half written
            yield from inner(batches)

        return run

    monkeypatch.setattr(job, "_fingerprint_partitions", flaky)
    root, docs = corpus
    src = tmp_path / "docs.parquet"
    _write_parquet(src, docs)
    job.run(spark, _args(input=src, output=tmp_path / "out", kind="code", max_submissions=10, partitions=8))
    got = sorted(_read(tmp_path / "out" / "pairs.parquet"), key=lambda r: r["rank"])
    assert arrow_pairs(got) == cli_pairs(run_cli(root, "-m", "10"))
    # The failure did happen: Spark's own record of this application.
    import urllib.request

    sc = spark.sparkContext
    with urllib.request.urlopen(f"{sc.uiWebUrl}/api/v1/applications/{sc.applicationId}/stages") as r:
        stages = json.load(r)
    assert sum(s["numFailedTasks"] for s in stages) >= 1


def test_base_code_equals_bryo_compare_b(spark, corpus, tmp_path):
    """Base code (`-b`, a JSON Lines file): one document of the corpus —
    with passages many others share, and an exact copy elsewhere — given
    as base code. Pairs, scores and fragments equal `bryo compare -b` on
    the same files over six partitions; without the base they differ."""
    from bryo.spark import run

    from conftest import write_corpus

    root, docs = corpus
    names = sorted(docs)
    base_text = docs[names[1]]  # names[3] is an exact copy of it
    cli_root = tmp_path / "cli"
    write_corpus(cli_root, {**docs, "base/common.py": base_text})
    base = tmp_path / "base.jsonl"
    base.write_text(json.dumps({"id": "base/common.py", "text": base_text.decode()}) + "\n")
    src = tmp_path / "docs.parquet"
    _write_parquet(src, docs)
    out = tmp_path / "out"
    args = _args(input=src, output=out, kind="code", pairs=0, partitions=6)
    args.base = [str(base)]
    record = run(spark, args)
    report = run_cli(cli_root, "-b", "base", "-n", "0")
    expected = cli_pairs(report)
    assert report["stats"]["base_hashes"] > 0  # base code did remove matches
    assert report["stats"].get("discount_below")  # and the discount applied
    assert expected != cli_pairs(run_cli(cli_root, "-n", "0"))
    got = sorted(_read(out / "pairs.parquet"), key=lambda r: r["rank"])
    assert arrow_pairs(got) == expected
    assert (names[1], names[3]) not in {(r["doc_a"], r["doc_b"]) for r in got}
    assert record["counts"]["candidate_pairs"] == report["stats"]["candidate_pairs"]
    assert record["counts"]["base_documents"] == 1
    assert record["rule"] == _rule(report)


def test_submissions_of_several_documents_and_old_ones_equal_bryo_compare(spark, tmp_path):
    """`-d` groups documents by their `submission` column and `--old`
    adds an earlier term: pairs of submissions (never two old ones),
    scores and fragments with their files equal `bryo compare -d --old`
    on the same files, under the rarity rule; every document's passages
    are the union of the fragments in it."""
    from bryo.spark import InputError, run

    from conftest import make_corpus, make_term_layout, write_corpus

    layout = make_term_layout(make_corpus(75, seed=9), old_from=17)
    root = tmp_path / "corpus"
    write_corpus(root, layout)

    def parquet(path, names):
        pq.write_table(
            pa.table(
                {
                    "id": names,
                    "text": [layout[n] for n in names],
                    "submission": [n.rsplit("/", 1)[0] for n in names],
                }
            ),
            path,
            row_group_size=7,
        )

    parquet(tmp_path / "new.parquet", sorted(n for n in layout if n.startswith("docs/")))
    parquet(tmp_path / "old.parquet", sorted(n for n in layout if n.startswith("old/")))
    out = tmp_path / "out"
    args = _args("-d", input=tmp_path / "new.parquet", output=out, kind="code", pairs=0, partitions=5)
    args.old = [str(tmp_path / "old.parquet")]
    record = run(spark, args)
    report = run_cli(root, "-d", "--old", "old", "-n", "0")
    expected = cli_pairs(report)
    got = sorted(_read(out / "pairs.parquet"), key=lambda r: r["rank"])
    assert arrow_pairs(got) == expected
    assert any(p[0].startswith("docs/") and p[1].startswith("old/") for p in expected)
    assert not any(r["a_old"] and r["b_old"] for r in got)
    assert {r["b_old"] for r in got} == {True, False}
    assert record["counts"]["submissions"] == len(report["submissions"])
    assert record["counts"]["candidate_pairs"] == report["stats"]["candidate_pairs"]
    assert record["rule"] == _rule(report)
    documents = {d["doc_id"]: d for d in _read(out / "documents.parquet")}
    assert set(documents) == set(layout)
    assert {d: r["old"] for d, r in documents.items()} == {n: n.startswith("old/") for n in layout}
    for d, row in documents.items():
        covered = set()
        for p in got:
            for f in p["fragments"]:
                if f["file_a"] == d:
                    covered.update(range(f["a_byte_start"], f["a_byte_end"]))
                if f["file_b"] == d:
                    covered.update(range(f["b_byte_start"], f["b_byte_end"]))
        assert sum(p["byte_end"] - p["byte_start"] for p in row["passages"] or []) == len(covered), d

    # Without the column, -d is an error; a submission with new and old
    # documents too.
    _write_parquet(tmp_path / "plain.parquet", {n: layout[n] for n in list(layout)[:4]})
    with pytest.raises(InputError, match="`submission` column, which is missing"):
        run(spark, _args("-d", input=tmp_path / "plain.parquet", output=tmp_path / "o2", kind="code"))
    args = _args("-d", input=tmp_path / "new.parquet", output=tmp_path / "o3", kind="code")
    args.old = [str(tmp_path / "new2.parquet")]
    names = sorted(n for n in layout if n.startswith("docs/"))
    pq.write_table(
        pa.table({"id": ["x/" + names[0]], "text": [b"x = 1"], "submission": [names[0].rsplit("/", 1)[0]]}),
        tmp_path / "new2.parquet",
    )
    with pytest.raises(InputError, match="both new and old"):
        run(spark, args)


def test_an_index_both_ways_equals_bryo_compare_against(spark, tmp_path):
    """An index made by `bryo index add` is queried by the job (`--against`:
    postings read from its Parquet segments, texts from its catalogue), and
    an index the job builds (`--add-to`) is queried by `bryo compare
    --against`: both give the pairs, scores and fragments of `bryo compare
    --against` on the CLI's own index, archived submissions named `PATH
    [TAG]`."""
    import subprocess

    from bryo.spark import InputError, run

    from conftest import bryo_binary, make_corpus, write_corpus

    docs = make_corpus(60, seed=13)
    names = sorted(docs)
    # An earlier term (the last 20 documents and an exact copy of a new one)
    # and the new one.
    layout = {n.replace("docs/", "old/") if i >= 40 else n: docs[n] for i, n in enumerate(names)}
    layout["old/copy.py"] = docs[names[5]]
    root = tmp_path / "corpus"
    write_corpus(root, layout)

    def cli(*args):
        subprocess.run([bryo_binary(), *args], cwd=root, check=True, capture_output=True)

    cli("index", "create", "cli-index", "-l", "python")
    cli("index", "add", "cli-index", "--tag", "fall", "old")
    expected = cli_pairs(run_cli(root, "--against", "cli-index", "-n", "0"))
    assert any(p[1].endswith(" [fall]") for p in expected)
    assert any(p[1] == "old/copy.py [fall]" and p[6] for p in expected)  # identical

    def parquet(path, prefix):
        chosen = {n: layout[n] for n in layout if n.startswith(prefix)}
        _write_parquet(path, chosen, row_group_size=5)

    # The new term as JSON Lines (text as strings), the old one as Parquet.
    (tmp_path / "new.jsonl").write_text(
        "\n".join(
            json.dumps({"id": n, "text": layout[n].decode()}) for n in sorted(layout) if n.startswith("docs/")
        )
    )
    parquet(tmp_path / "old.parquet", "old/")
    # The job against the CLI's index: language, k and w are the index's.
    out = tmp_path / "out"
    record = run(
        spark,
        _args(input=tmp_path / "new.jsonl", output=out, against=root / "cli-index", pairs=0, partitions=4),
    )
    got = sorted(_read(out / "pairs.parquet"), key=lambda r: r["rank"])
    assert arrow_pairs(got) == expected
    # Every archived document (the binary one was skipped by `index add`).
    archived = {d["doc_id"] for d in _read(out / "documents.parquet") if d["archived"]}
    assert archived == {f"{n} [fall]" for n in layout if n.startswith("old/") and "binary" not in n}
    assert record["counts"]["archived_documents"] == len(archived)

    # The job builds an index of the earlier term; the CLI queries it.
    run(
        spark,
        _args(
            input=tmp_path / "old.parquet", output=tmp_path / "o2", language="python",
            add_to=root / "spark-index", tag="fall", partitions=3,
        ),
    )
    assert cli_pairs(run_cli(root, "--against", "spark-index", "-n", "0")) == expected
    info = lambda d: subprocess.run(  # noqa: E731
        [bryo_binary(), "index", "info", d], cwd=root, check=True, capture_output=True, text=True
    ).stdout.replace(d, "")
    assert info("spark-index") == info("cli-index")

    # An index made under other options is refused with the reason.
    with pytest.raises(InputError, match="-k 12, not 9|made with -k"):
        run(spark, _args("-k", "9", input=tmp_path / "new.jsonl", output=tmp_path / "o3", against=root / "cli-index"))
    with pytest.raises(InputError, match="--against"):
        run(spark, _args(input=tmp_path / "new.jsonl", output=tmp_path / "o4", against=tmp_path / "nowhere"))
    with pytest.raises(InputError, match="made without --normalize"):
        run(spark, _args("--normalize", input=tmp_path / "new.jsonl", output=tmp_path / "o5", against=root / "cli-index"))
    with pytest.raises(InputError, match=r"other options: normalization keep-strings \(the job: verbatim\)"):
        run(
            spark,
            _args(
                "--normalization", "verbatim", input=tmp_path / "old.parquet", output=tmp_path / "o6",
                language="python", add_to=root / "spark-index",
            ),
        )


def test_bad_base_code(spark, tmp_path):
    from bryo.spark import InputError, run

    good = tmp_path / "docs.jsonl"
    good.write_text("\n".join(json.dumps({"id": f"{i}.py", "text": "x = 1\n"}) for i in range(3)))
    args = _args(input=good, output=tmp_path / "o", language="python")
    args.base = [str(tmp_path / "nowhere.jsonl")]
    with pytest.raises(InputError, match="base code file not found"):
        run(spark, args)
    wrong = tmp_path / "base.jsonl"
    wrong.write_text(json.dumps({"name": "a.py", "text": "x = 1\n"}) + "\n")
    args.base = [str(wrong)]
    with pytest.raises(InputError, match="missing column id"):
        run(spark, args)
