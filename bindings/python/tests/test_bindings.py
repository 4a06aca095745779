"""The Arrow functions against the `bryo` CLI on the same files."""

from __future__ import annotations

import itertools
from collections import defaultdict

import pyarrow as pa
import pytest

import bryo
from conftest import arrow_pairs, batch_of, cli_pairs, make_java_corpus, run_cli, write_corpus


def test_compare_on_a_batch_equals_the_cli(corpus):
    root, docs = corpus
    for args, kwargs in [
        ((), {}),
        (("-n", "0"), {"max_pairs": 0}),
        (("-m", "5", "-n", "0"), {"max_submissions": 5, "max_pairs": 0}),
        (("-n", "7"), {"max_pairs": 7}),
        (("--max-file-size", "1500"), {"max_file_size": 1500}),
    ]:
        report = run_cli(root, *args)
        pairs, skipped = bryo.compare(batch_of(docs), **kwargs)
        expected = cli_pairs(report)
        assert len(expected) > 5
        assert arrow_pairs(pairs.to_pylist()) == expected, args
        assert sorted(skipped.to_pylist(), key=lambda s: s["doc_id"]) == [
            {"doc_id": s["path"], "reason": s["reason"]} for s in report["skipped"]
        ]


@pytest.mark.parametrize(
    "flags,kwargs",
    [
        (("--parser", "tree-sitter"), {"parser": "tree-sitter"}),
        (("--normalization", "full"), {"normalization": "full"}),
        (("--verbatim",), {"normalization": "verbatim"}),
        (("--normalize",), {"normalize": True}),
    ],
)
def test_front_end_options_equal_the_cli(corpus, tmp_path, flags, kwargs):
    """The CLI's front-end options, as keywords of `compare` and
    `fingerprint`: the same pairs as the CLI, and an effect (other
    symbols, or the tree-sitter front-end, whose Python tokens are the
    lexer's on this corpus). Two added files differ only in their strings,
    which `full` normalization does not see."""
    from conftest import write_corpus

    _, docs = corpus
    body = "".join(f"    print('{{}} {i}', x * {i})\n" for i in range(30))
    docs = dict(docs)
    docs["docs/s1.py"] = ("def report(x):\n" + body.replace("{}", "total")).encode()
    docs["docs/s2.py"] = ("def report(x):\n" + body.replace("{}", "count of items")).encode()
    root = tmp_path
    write_corpus(root, docs)
    report = run_cli(root, *flags, "-n", "0")
    expected = cli_pairs(report)
    pairs, _ = bryo.compare(batch_of(docs), max_pairs=0, **kwargs)
    assert arrow_pairs(pairs.to_pylist()) == expected
    postings, documents = bryo.fingerprint(batch_of(docs), kind="code", **kwargs)
    default, _ = bryo.fingerprint(batch_of(docs), kind="code")
    if kwargs.get("parser") or kwargs.get("normalize"):
        assert set(documents.column("frontend").drop_null().to_pylist()) == {"tree-sitter"}
    if "parser" not in kwargs:
        assert expected != cli_pairs(run_cli(root, "-n", "0"))
        assert postings.column("hash") != default.column("hash")


def test_front_end_options_are_checked(corpus):
    _, docs = corpus
    with pytest.raises(ValueError, match="syntax trees"):
        bryo.compare(batch_of(docs), parser="lexer", normalize=True)
    with pytest.raises(ValueError, match="unknown parser"):
        bryo.fingerprint(batch_of(docs), kind="code", parser="yacc")
    with pytest.raises(ValueError, match="unknown normalization"):
        bryo.fingerprint(batch_of(docs), kind="code", normalization="none")


def test_compare_with_base_code_equals_the_cli_b(corpus, tmp_path):
    """`base` documents are `bryo compare -b` (pair by pair, in the Spark
    job's fragment stage, see test_spark.py)."""
    from conftest import write_corpus

    root, docs = corpus
    names = sorted(docs)
    base_text = docs[names[1]]
    write_corpus(tmp_path, {**docs, "base/common.py": base_text})
    report = run_cli(tmp_path, "-b", "base", "-n", "0")
    expected = cli_pairs(report)
    assert report["stats"]["base_hashes"] > 0
    assert expected != cli_pairs(run_cli(tmp_path, "-n", "0"))
    base = pa.RecordBatch.from_pydict({"doc_id": ["base/common.py"], "text": [base_text]})
    pairs, _ = bryo.compare(batch_of(docs), base=base, max_pairs=0)
    assert arrow_pairs(pairs.to_pylist()) == expected


def test_compare_groups_submissions_and_old_documents_as_the_cli(tmp_path):
    """A `submission` column groups documents as `bryo compare -d` groups
    the files of a directory, and an `old` column is `--old`: pairs,
    scores and fragments (with their files) equal the CLI's, and no pair
    is of two old submissions."""
    from conftest import make_corpus, make_term_layout, write_corpus

    layout = make_term_layout(make_corpus(45, seed=3), old_from=11)
    write_corpus(tmp_path, layout)
    report = run_cli(tmp_path, "-d", "--old", "old", "-n", "0")
    expected = cli_pairs(report)
    names = sorted(layout)
    batch = pa.RecordBatch.from_pydict(
        {
            "doc_id": names,
            "bytes": [layout[n] for n in names],
            "submission": [n.rsplit("/", 1)[0] for n in names],
            "old": [n.startswith("old/") for n in names],
        },
        schema=pa.schema(
            [("doc_id", pa.string()), ("bytes", pa.binary()), ("submission", pa.string()), ("old", pa.bool_())]
        ),
    )
    pairs, skipped = bryo.compare(batch, max_pairs=0)
    rows = pairs.to_pylist()
    assert arrow_pairs(rows) == expected
    assert any(p[0].startswith("docs/") and p[1].startswith("old/") for p in expected)
    assert not any(r["doc_a"].startswith("old/") and r["doc_b"].startswith("old/") for r in rows)
    # Fragments lie in several files of a submission.
    assert len({f["file_a"] for r in rows for f in r["fragments"]}) > len({r["doc_a"] for r in rows})
    assert [s["doc_id"] for s in skipped.to_pylist()] == [s["path"] for s in report["skipped"]]

    # Compared alone, a pair of submissions gives the whole run's fragments
    # when nothing common was excluded (-m 0 on both sides).
    whole = cli_pairs(run_cli(tmp_path, "-d", "--old", "old", "-n", "0", "-m", "0"))
    chosen = pa.RecordBatch.from_pydict({"doc_a": [whole[0][1]], "doc_b": [whole[0][0]]})
    alone, _ = bryo.compare(batch, pairs=chosen, max_submissions=0)
    assert [p[:2] + p[3:5] + p[6:] for p in arrow_pairs(alone.to_pylist())] == [
        whole[0][:2] + whole[0][3:5] + whole[0][6:]
    ]

    both_old = [n.rsplit("/", 1)[0] for n in names if n.startswith("old/")]
    with pytest.raises(ValueError, match="two old submissions"):
        bryo.compare(
            batch, pairs=pa.RecordBatch.from_pydict({"doc_a": [both_old[0]], "doc_b": [both_old[-1]]})
        )
    mixed = batch.set_column(3, "old", pa.array([i == 0 for i in range(len(names))]))
    with pytest.raises(ValueError, match="both old and new"):
        bryo.compare(mixed)


def test_fingerprint_reports_bad_documents_with_reasons(corpus):
    _, docs = corpus
    batch = batch_of(docs)
    postings, documents = bryo.fingerprint(batch, language="python")
    rows = {d["doc_id"]: d for d in documents.to_pylist()}
    assert len(rows) == batch.num_rows  # nothing dropped
    assert not rows["docs/zz_binary.py"]["ok"]
    _, small = bryo.fingerprint(batch, language="python", max_file_size=1500)
    big = [d for d in small.to_pylist() if len(docs[d["doc_id"]]) > 1500]
    assert big and all(not d["ok"] and "larger than the" in d["reason"] for d in big)
    assert "binary" in rows["docs/zz_binary.py"]["reason"]
    assert rows["docs/zz_empty.py"]["ok"] and rows["docs/zz_empty.py"]["fingerprints"] == 0
    # A null text is a document without text, kept with its reason.
    nulls = pa.RecordBatch.from_pydict({"doc_id": ["x.py"], "text": pa.array([None], pa.string())})
    _, d = bryo.fingerprint(nulls, language="python")
    assert d.to_pylist()[0]["ok"] is False and d.to_pylist()[0]["reason"] == "no text (null)"
    # Postings: per document, as many as its fingerprints; spans inside it.
    per_doc = defaultdict(int)
    for p in postings.to_pylist():
        per_doc[p["doc_id"]] += 1
        assert 0 <= p["byte_start"] < p["byte_end"] <= len(docs[p["doc_id"]])
    assert {k: v for k, v in per_doc.items()} == {
        k: r["fingerprints"] for k, r in rows.items() if r["fingerprints"]
    }


def test_postings_find_the_cli_candidate_pairs(corpus):
    """Pairs of documents sharing a posting hash are the CLI's candidate
    pairs (under -m 0 no hash is excluded)."""
    root, docs = corpus
    report = run_cli(root, "-m", "0", "-n", "0")
    postings, documents = bryo.fingerprint(batch_of(docs), language="python")
    assert (report["options"]["k"], report["options"]["w"]) == bryo.thresholds(language="python")
    by_hash = defaultdict(set)
    for h, d in zip(postings.column("hash").to_pylist(), postings.column("doc_id").to_pylist()):
        by_hash[h].add(d)
    # Exact copies are found before winnowing; the CLI counts the others.
    pairs = set()
    for ds in by_hash.values():
        pairs.update(itertools.combinations(sorted(ds), 2))
    assert len(pairs) == report["stats"]["candidate_pairs"]


def test_pairs_alone_with_excluded_hashes_equal_the_cli_m_rule(corpus):
    """The fragment stage of the distributed job: each pair compared alone
    with the hashes in more than m documents excluded equals `-m m`."""
    root, docs = corpus
    m = 5
    report = run_cli(root, "-m", str(m), "-n", "0")
    postings, _ = bryo.fingerprint(batch_of(docs), language="python")
    by_hash = defaultdict(set)
    for h, d in zip(postings.column("hash").to_pylist(), postings.column("doc_id").to_pylist()):
        by_hash[h].add(d)
    excluded = sorted(h for h, ds in by_hash.items() if len(ds) > m)
    assert excluded
    expected = cli_pairs(report)
    wanted = pa.RecordBatch.from_pydict(
        {"doc_a": [p[0] for p in expected], "doc_b": [p[1] for p in expected]}
    )
    pairs, _ = bryo.compare(
        batch_of(docs), pairs=wanted, excluded_hashes=excluded, max_submissions=0, language=None
    )
    assert arrow_pairs(pairs.to_pylist()) == expected


def _rarity_counts(docs):
    """The rarity rule on the whole corpus, computed here from the postings
    and the documents' content fingerprints: the template threshold, the
    template hashes, and the distinct documents (identical ones counted
    once) holding each other shared hash."""
    postings, documents = bryo.fingerprint(batch_of(docs), language="python")
    rows = [d for d in documents.to_pylist() if d["ok"]]
    seen, canonical = set(), set()
    for d in sorted(rows, key=lambda d: d["doc_id"]):
        key = (d["symbols"], d["content_fingerprint"])
        if key not in seen:
            seen.add(key)
            canonical.add(d["doc_id"])
    distinct_docs = sum(1 for d in rows if d["doc_id"] in canonical and d["symbols"])
    template_above = max(distinct_docs // 2, 10)
    by_hash = defaultdict(set)
    for h, d in zip(postings.column("hash").to_pylist(), postings.column("doc_id").to_pylist()):
        by_hash[h].add(d)
    df = {h: len(ds & canonical) for h, ds in by_hash.items() if len(ds) >= 2}
    template = sorted(h for h, n in df.items() if n > template_above)
    counts = {h: n for h, n in df.items() if n <= template_above}
    return template_above, template, counts


def test_pairs_alone_with_rarity_counts_equal_the_cli_discount(corpus):
    """Each pair compared alone with the whole corpus's template hashes and
    rarity counts equals `bryo compare` at its defaults, discount included;
    without the counts (or with discount=False) it equals --no-discount,
    and the discount does change some similarity on this corpus."""
    root, docs = corpus
    report = run_cli(root, "-n", "0")
    plain = run_cli(root, "--no-discount", "-n", "0")
    template_above, template, counts = _rarity_counts(docs)
    assert report["stats"]["template_above"] == template_above > 10
    assert report["stats"]["discount_below"] == bryo.discount_below(
        k=report["options"]["k"], template_above=template_above
    )
    assert bryo.discount_below(k=12, template_above=template_above, discount=False) == 0
    assert bryo.discount_below(k=12, template_above=10) == 0
    expected = cli_pairs(report)
    assert template and len(expected) > 5
    differ = [(e, p) for e, p in zip(expected, cli_pairs(plain)) if e[2] != p[2]]
    assert differ and all(e[:2] == p[:2] and e[3:] == p[3:] for e, p in differ)
    wanted = pa.RecordBatch.from_pydict(
        {"doc_a": [p[0] for p in expected], "doc_b": [p[1] for p in expected]}
    )
    hash_submissions = pa.table(
        {"hash": pa.array(list(counts), pa.uint64()), "submissions": list(counts.values())}
    )
    kwargs = dict(pairs=wanted, excluded_hashes=template, language="python")
    pairs, _ = bryo.compare(
        batch_of(docs), hash_submissions=hash_submissions, template_above=template_above, **kwargs
    )
    assert arrow_pairs(pairs.to_pylist()) == expected
    alone, _ = bryo.compare(batch_of(docs), **kwargs)
    assert arrow_pairs(alone.to_pylist()) == cli_pairs(plain)
    off, _ = bryo.compare(
        batch_of(docs),
        hash_submissions=hash_submissions,
        template_above=template_above,
        discount=False,
        **kwargs,
    )
    assert arrow_pairs(off.to_pylist()) == cli_pairs(plain)
    # On the whole batch, `discount` is the CLI's flag.
    whole, _ = bryo.compare(batch_of(docs), max_pairs=0, discount=False)
    assert arrow_pairs(whole.to_pylist()) == cli_pairs(plain)
    with pytest.raises(ValueError, match="go together"):
        bryo.compare(batch_of(docs), hash_submissions=hash_submissions, **kwargs)
    with pytest.raises(ValueError, match="under the rarity rule"):
        bryo.compare(
            batch_of(docs),
            hash_submissions=hash_submissions,
            template_above=template_above,
            max_submissions=0,
            **kwargs,
        )


def test_pairs_alone_seeded_by_given_hashes(corpus):
    """A `seeds` column restricts the hashes that seed each pair compared
    alone: every hash the two share (as uint64, or as Spark's int64 bit for
    bit) changes nothing, one hash still finds what extends from it, none
    finds nothing (an identical pair still comes out whole), and a column
    of another type is a clear error. On a corpus this small the seed limit
    never cuts, so the CLI's pairs are those alone without seeds."""
    root, docs = corpus
    plain = cli_pairs(run_cli(root, "--no-discount", "-n", "0"))
    _, template, _ = _rarity_counts(docs)
    postings, _ = bryo.fingerprint(batch_of(docs), language="python")
    hashes = defaultdict(set)
    for h, d in zip(postings.column("hash").to_pylist(), postings.column("doc_id").to_pylist()):
        hashes[d].add(h)
    names = [(p[0], p[1]) for p in plain]
    shared = [sorted(hashes[a] & hashes[b]) for a, b in names]
    identical = [p[6] for p in plain]
    assert len(names) > 5 and any(identical) and not all(identical)

    def alone(seeds, type_=pa.list_(pa.uint64())):
        wanted = pa.RecordBatch.from_pydict(
            {
                "doc_a": [a for a, _ in names],
                "doc_b": [b for _, b in names],
                "seeds": pa.array(seeds, type_),
            }
        )
        pairs, _ = bryo.compare(
            batch_of(docs), pairs=wanted, excluded_hashes=template, language="python"
        )
        return arrow_pairs(pairs.to_pylist())

    assert alone(shared) == plain
    # These hashes fit in 63 bits; a negative int64 (here 2**64 - 1, no
    # hash of the corpus) is read bit for bit, not rejected.
    signed = [[h - 2**64 if h >= 2**63 else h for h in s] + [-1] for s in shared]
    assert alone(signed, pa.list_(pa.int64())) == plain
    assert alone(shared, pa.large_list(pa.uint64())) == plain
    # A null is no restriction.
    assert alone([None if i % 2 else s for i, s in enumerate(shared)]) == plain
    # One seed: the pair is found by it alone (its shared fingerprints are
    # that hash's occurrences), its first fragment extends from it.
    matched = [[h for h in s if h not in set(template)] for s in shared]
    one = alone([s[:1] for s in matched])
    assert [p[:2] for p in one] == names
    assert all(0 < p[5] <= 16 for p in one) and any(p[7] for p in one)
    assert sum(p[5] for p in one) < sum(p[5] for p in plain)
    # No seed: only the identical pairs, whole.
    none = alone([[] for _ in shared])
    assert none and all(p[6] and p[5] == 0 for p in none)
    assert {p[:2] for p in none} == {n for n, i in zip(names, identical) if i}

    wanted = {"doc_a": [names[0][0]], "doc_b": [names[0][1]]}
    for seeds, message in [
        (pa.array([["1"]], pa.list_(pa.string())), "list of uint64 or int64"),
        (pa.array([1], pa.uint64()), "list of uint64 or int64"),
        (pa.array([[1, None]], pa.list_(pa.uint64())), "null hash in row 0"),
    ]:
        batch = pa.RecordBatch.from_pydict({**wanted, "seeds": seeds})
        with pytest.raises(ValueError, match=message):
            bryo.compare(batch_of(docs), pairs=batch, language="python")


def test_bad_calls_are_clear_errors(corpus):
    _, docs = corpus
    no_text = pa.RecordBatch.from_pydict({"doc_id": ["a"]})
    with pytest.raises(ValueError, match="neither a `text` nor a `bytes` column"):
        bryo.fingerprint(no_text, language="python")
    with pytest.raises(ValueError, match="no `doc_id` column"):
        bryo.fingerprint(pa.RecordBatch.from_pydict({"text": ["x"]}), language="python")
    with pytest.raises(ValueError, match="unknown language"):
        bryo.fingerprint(batch_of(docs), language="klingon")
    with pytest.raises(ValueError, match="give a language, a kind"):
        bryo.fingerprint(batch_of(docs))
    with pytest.raises(ValueError, match="need at least two submissions"):
        bryo.compare(pa.RecordBatch.from_pydict({"doc_id": ["a.py"], "text": ["x = 1"]}))


def test_postings_are_the_index_segments_postings(corpus, tmp_path):
    """The postings' hashes and positions are those `bryo index add` stores
    in its Parquet segments (doc is the catalogue's number there, the
    document id here)."""
    import sqlite3
    import subprocess

    import pyarrow.parquet as pq

    from conftest import bryo_binary

    root, docs = corpus
    index = tmp_path / "index"
    subprocess.run([bryo_binary(), "index", "create", str(index), "-l", "python"], check=True, capture_output=True)
    subprocess.run([bryo_binary(), "index", "add", str(index), "docs"], cwd=root, check=True, capture_output=True)
    paths = dict(sqlite3.connect(index / "catalog.sqlite").execute("select id, path from documents"))
    stored = set()
    for segment in sorted((index / "segments").glob("*.parquet")):
        t = pq.read_table(segment)
        assert t.schema.names == ["hash", "doc", "pos"]
        for h, d, p in zip(*(t.column(c).to_pylist() for c in ("hash", "doc", "pos"))):
            stored.add((h, paths[d], p))
    postings, _ = bryo.fingerprint(batch_of(docs), language="python")
    ours = set(zip(*(postings.column(c).to_pylist() for c in ("hash", "doc_id", "position"))))
    assert len(stored) > 1000
    assert ours == stored


def test_a_whole_pair_is_reported_as_the_cli_adds_identical_documents():
    """`whole`: identical documents outside the scored candidates come out
    matched whole (similarity 1, no shared fingerprint); without it they are
    compared like any pair."""
    body = "".join(f"value_{i} = compute_{i}(alpha, beta) + {i}\n" for i in range(30))
    docs = pa.RecordBatch.from_pydict({"doc_id": ["a.py", "b.py"], "text": [body, body]})
    pair = {"doc_a": ["a.py"], "doc_b": ["b.py"]}
    plain, _ = bryo.compare(docs, pairs=pa.RecordBatch.from_pydict(pair))
    whole, _ = bryo.compare(docs, pairs=pa.RecordBatch.from_pydict({**pair, "whole": [True]}))
    (p,), (w,) = plain.to_pylist(), whole.to_pylist()
    assert p["identical"] and p["shared_fingerprints"] > 0
    assert w["identical"] and w["shared_fingerprints"] == 0 and w["similarity"] == 1.0
    assert w["covered_a"] == w["symbols_a"]


def _rehash(z: int) -> int:
    """SplitMix64's finalizer (`bryo_engine::rehash`), from its definition."""
    mask = (1 << 64) - 1
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def test_seed_order_is_the_rarity_rules_order():
    """`seed_order` is `rehash(hash ^ rehash(submission))`, the key by which
    `bryo compare` orders the submissions of a hash above its seed limit;
    wrong types and lengths are clear errors."""
    hashes = [0, 1, 2**63 + 5, 2**64 - 1, 0x1234_5678_9ABC_DEF0]
    subs = [0, 7, 3, 2**32 - 1, 12]
    got = bryo.seed_order(hashes, subs).to_pylist()
    assert got == [_rehash(h ^ _rehash(s)) for h, s in zip(hashes, subs)]
    assert len(set(got)) == len(got)
    with pytest.raises(ValueError, match="uint64 hashes and uint32 submissions"):
        bryo.seed_order(pa.array([1], pa.int64()), pa.array([1], pa.uint32()))
    with pytest.raises(ValueError, match="same length"):
        bryo.seed_order([1, 2], [1])


def test_arguments_are_checked_once_for_both_functions(corpus):
    """`fingerprint` and `compare` share their argument checks: a negative
    or non-integer k, w or size limit is a ValueError naming it."""
    _, docs = corpus
    for call in (bryo.fingerprint, bryo.compare):
        with pytest.raises(ValueError, match="k must be a non-negative integer"):
            call(batch_of(docs), language="python", k=-1)
        with pytest.raises(ValueError, match="max_file_size must be a non-negative integer"):
            call(batch_of(docs), language="python", max_file_size=1.5)


def test_java_is_normalized_by_default_as_in_the_cli(tmp_path):
    """`normalize="auto"` (the default) normalizes Java, C and C++ as `bryo
    compare` does; `normalize=False` is `--no-normalize`."""
    docs = make_java_corpus()
    write_corpus(tmp_path, docs)
    default = cli_pairs(run_cli(tmp_path, "-n", "0"))
    plain = cli_pairs(run_cli(tmp_path, "--no-normalize", "-n", "0"))
    assert default != plain and len(default) >= 3
    pairs, _ = bryo.compare(batch_of(docs), max_pairs=0)
    assert arrow_pairs(pairs.to_pylist()) == default
    pairs, _ = bryo.compare(batch_of(docs), max_pairs=0, normalize=False)
    assert arrow_pairs(pairs.to_pylist()) == plain
    _, documents = bryo.fingerprint(batch_of(docs), kind="code")
    assert set(documents.column("frontend").to_pylist()) == {"tree-sitter"}
    _, documents = bryo.fingerprint(batch_of(docs), kind="code", normalize=False)
    assert set(documents.column("frontend").to_pylist()) == {"lexer"}
    assert bryo.front_end(language="java") == {
        "parser": "tree-sitter", "normalization": "keep-strings", "normalize": True,
    }
    assert bryo.front_end(language="python")["normalize"] is False
    assert bryo.front_end()["normalize"] == "auto"
    assert bryo.front_end(parser="lexer")["normalize"] is False
    with pytest.raises(ValueError, match="normalize must be"):
        bryo.compare(batch_of(docs), normalize="sometimes")
