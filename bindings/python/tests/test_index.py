"""The fingerprint index of `bryo index` from Python: read what the CLI
wrote, and write an index (create, prepare, commit) that `bryo compare
--against` reads as one made by `bryo index add`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import bryo
from conftest import bryo_binary, write_corpus


def cli(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([bryo_binary(), *args], cwd=cwd, check=True, capture_output=True, text=True)


def student_corpus(docs: dict[str, bytes]) -> dict[str, bytes]:
    """Submissions of two files each, `subs/sNN/{a,b}.py`, for `-d`."""
    names = sorted(n for n in docs if n.startswith("docs/d"))
    return {
        f"subs/s{i // 2:02}/{'ab'[i % 2]}.py": docs[n] for i, n in enumerate(names[:20])
    }


def new_corpus(docs: dict[str, bytes]) -> dict[str, bytes]:
    """New submissions that copy from archived ones: halves of some, a
    whole one, and text of their own."""
    names = sorted(n for n in docs if n.startswith("docs/d"))
    new = {}
    for i in range(8):
        text = docs[names[i * 6]]
        other = docs[names[i * 6 + 1]]
        new[f"new/n{i}.py"] = text[: len(text) // 2] + f"\ndef mine_{i}(a):\n    return a * {i}\n".encode() + other[len(other) // 2 :]
    new["new/whole.py"] = docs[names[40]]
    return new


@pytest.fixture(scope="module")
def cli_index(corpus, tmp_path_factory):
    """An index made by the CLI: the corpus's files (one submission each)
    under `fall`, the student directories (`-d`) under `spring`; with the
    `skipped` lines `index add` printed."""
    root, docs = corpus
    write_corpus(root, student_corpus(docs))
    index = tmp_path_factory.mktemp("cli") / "index"
    cli(root, "index", "create", str(index), "-l", "python")
    fall = cli(root, "index", "add", str(index), "--tag", "fall", "docs")
    spring = cli(root, "index", "add", str(index), "--tag", "spring", "-d", "subs")
    skipped = sorted(
        tuple(line[len("bryo: skipped ") :].split(": ", 1))
        for line in (fall.stderr + spring.stderr).splitlines()
        if line.startswith("bryo: skipped ")
    )
    return index, skipped


def texts_batch(files: dict[str, bytes], submissions: dict[str, str] | None = None) -> pa.RecordBatch:
    names = sorted(files)
    columns = {"doc_id": names, "text": [files[n] for n in names]}
    fields = [("doc_id", pa.string()), ("text", pa.binary())]
    if submissions is not None:
        columns["submission"] = [submissions[n] for n in names]
        fields.append(("submission", pa.string()))
    return pa.RecordBatch.from_pydict(columns, schema=pa.schema(fields))


def test_an_index_of_the_cli_reads_back(corpus, cli_index, tmp_path):
    root, docs = corpus
    index, _ = cli_index
    settings = bryo.index_settings(index)
    assert settings["language"] == "python"
    assert (settings["k"], settings["w"]) == bryo.thresholds(language="python")
    assert settings["text_mode"] == "chars" and settings["normalize"] is False
    assert settings["parser"] in ("lexer", "tree-sitter")
    assert (settings["hash_scheme_version"], settings["symbol_scheme_version"]) == bryo.schemes()
    assert settings["format_version"] >= 1

    documents = bryo.index_documents(index)
    assert documents.schema.field("doc").type == pa.uint32()
    rows = documents.to_pylist()
    files = {**docs, **student_corpus(docs)}
    stored = {r["path"]: r for r in rows}
    # Every file but the binary one (its reason is listed by `index add`).
    assert sorted(stored) == sorted(n for n in files if n != "docs/zz_binary.py")
    for path, r in stored.items():
        assert r["text"] == files[path], path
        if path.startswith("docs/"):
            assert (r["submission"], r["tag"]) == (path, "fall")
        else:
            assert (r["submission"], r["tag"]) == (path.rsplit("/", 1)[0], "spring")
    assert [r["doc"] for r in rows] == sorted(r["doc"] for r in rows)

    # The segments, read as Parquet and joined on `doc`, hold the postings
    # `bryo.fingerprint` gives with the index's settings.
    segments = bryo.index_segments(index)
    assert segments and all(Path(s).is_absolute() and Path(s).is_file() for s in segments)
    postings = pa.concat_tables([pq.read_table(s) for s in segments])
    assert postings.schema.field("hash").type == pa.uint64()
    path_of = {r["doc"]: r["path"] for r in rows}
    from_index = defaultdict(list)
    for h, d, p in zip(*(postings.column(c).to_pylist() for c in ("hash", "doc", "pos"))):
        from_index[path_of[d]].append((h, p))
    batch = texts_batch({p: stored[p]["text"] for p in stored})
    fps, _ = bryo.fingerprint(batch, language=settings["language"], k=settings["k"], w=settings["w"])
    expected = defaultdict(list)
    for h, d, p in zip(*(fps.column(c).to_pylist() for c in ("hash", "doc_id", "position"))):
        expected[d].append((h, p))
    assert sum(len(v) for v in expected.values()) > 1000
    assert {d: sorted(v) for d, v in from_index.items()} == {d: sorted(v) for d, v in expected.items()}

    # A removed document leaves index_documents; its postings stay in the
    # segments until `bryo index compact`.
    copy = tmp_path / "index"
    shutil.copytree(index, copy)
    cli(root, "index", "remove", str(copy), "--document", "docs/d005.py")
    left = bryo.index_documents(copy).to_pylist()
    assert [r["path"] for r in left] == [r["path"] for r in rows if r["path"] != "docs/d005.py"]
    assert sum(pq.read_metadata(s).num_rows for s in bryo.index_segments(copy)) == postings.num_rows


def report_without_timings(report: dict) -> dict:
    """A JSON report without what depends on the run rather than the
    input: timings and the paths of the index."""
    def clean(value):
        if isinstance(value, dict):
            return {
                k: clean(v)
                for k, v in value.items()
                if not re.search(r"time|elapsed|seconds|duration|_ms$|threads|version|command", k) and k != "old"
            }
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value

    return clean(report)


def info_lines(index: Path) -> list[str]:
    out = cli(index.parent, "index", "info", str(index)).stdout.splitlines()[1:]
    return [re.sub(r"; catalogue [\d,]+ bytes", "", line) for line in out]


def prepared_index(tmp_path: Path, corpus, batches=None) -> tuple[Path, list]:
    """The corpus's files and the student directories added with
    index_create, index_prepare and index_commit, as the CLI fixture adds
    them."""
    root, docs = corpus
    index = tmp_path / "index"
    bryo.index_create(index, language="python")
    fall = {n: t for n, t in docs.items()}
    students = student_corpus(docs)
    # Batches in reverse order (commit sorts them), prepared while the
    # commit reads them: workers read the settings of an index that a
    # commit is writing.
    names = sorted(fall)
    half = len(names) // 2

    def fall_batches():
        for part in (names[half:], names[:half]):
            yield bryo.index_prepare(texts_batch({n: fall[n] for n in part}), dir=index)

    first = bryo.index_commit(index, fall_batches(), tag="fall")
    by_dir = {n: n.rsplit("/", 1)[0] for n in students}
    spring = bryo.index_prepare(texts_batch(students, by_dir), dir=index)
    # As Spark, which has no unsigned types, would hand them back.
    signed = pa.schema(
        [
            f.with_type(pa.int64()) if f.type == pa.uint64()
            else f.with_type(pa.list_(pa.int64())) if f.name == "hashes"
            else f.with_type(pa.list_(pa.int32())) if f.name == "positions"
            else f
            for f in spring.schema
        ]
    )
    spring = pa.Table.from_batches([spring]).cast(signed, safe=False)
    assert spring.schema.field("raw_fingerprint").type == pa.int64()
    second = bryo.index_commit(index, spring, tag="spring")
    assert (first["documents"], second["documents"]) == (len(fall) - 1, len(students))
    assert second["submissions"] == len(set(by_dir.values())) == 10
    assert first["postings"] > 1000
    return index, sorted(first["skipped"] + second["skipped"])


def test_an_index_written_from_python_is_the_cli_s(corpus, cli_index, tmp_path):
    root, docs = corpus
    cli_dir, cli_skipped = cli_index
    index, skipped = prepared_index(tmp_path, corpus)
    assert skipped == cli_skipped and [s[0] for s in skipped] == ["docs/zz_binary.py"]
    assert info_lines(index) == info_lines(cli_dir)
    assert bryo.index_settings(index) == bryo.index_settings(cli_dir)
    ours, theirs = bryo.index_documents(index), bryo.index_documents(cli_dir)
    assert ours.equals(theirs)

    new_root = tmp_path / "query"
    write_corpus(new_root, new_corpus(docs))
    reports = [
        json.loads(cli(new_root, "compare", "--against", str(d), "new", "--format", "json", "-n", "0").stdout)
        for d in (cli_dir, index)
    ]
    assert len(reports[0]["pairs"]) > 5
    assert any("[spring]" in s["name"] for s in reports[0]["submissions"])
    assert any(p["fragments"] for p in reports[0]["pairs"])
    assert report_without_timings(reports[1]) == report_without_timings(reports[0])


def test_prepare_keeps_bad_documents_with_the_cli_s_reason(corpus, cli_index, tmp_path):
    _, docs = corpus
    index, _ = cli_index
    batch = texts_batch(docs)

    def files():
        return {p: p.read_bytes() for p in sorted(index.rglob("*")) if p.is_file()}

    before = files()
    prepared = bryo.index_prepare(batch, dir=index, max_file_size=1500).to_pylist()
    assert files() == before  # nothing written
    assert [r["doc_id"] for r in prepared] == batch.column("doc_id").to_pylist()
    assert all(r["submission"] == r["doc_id"] for r in prepared)
    by_id = {r["doc_id"]: r for r in prepared}
    assert not by_id["docs/zz_binary.py"]["ok"] and by_id["docs/zz_binary.py"]["reason"]
    big = [n for n, t in docs.items() if len(t) > 1500]
    assert big
    for n in big:
        assert not by_id[n]["ok"]
        assert by_id[n]["reason"].startswith("larger than the"), by_id[n]["reason"]
        assert by_id[n]["hashes"] == [] and by_id[n]["stream"] is None
    ok = [r for r in prepared if r["ok"]]
    assert ok and all(len(r["hashes"]) == len(r["positions"]) for r in ok)
    assert any(r["hashes"] for r in ok)


def test_errors(corpus, cli_index, tmp_path):
    root, docs = corpus
    cli_dir, _ = cli_index
    with pytest.raises(ValueError, match="not a bryo index"):
        bryo.index_settings(tmp_path)
    with pytest.raises(ValueError, match="not a bryo index"):
        bryo.index_documents(tmp_path / "missing")
    with pytest.raises(ValueError, match="not a bryo index"):
        bryo.index_prepare(texts_batch({"a.py": b"x = 1\n"}), dir=tmp_path)
    with pytest.raises(ValueError, match="already exists"):
        bryo.index_create(cli_dir, language="python")

    # A damaged segment.
    damaged = tmp_path / "damaged"
    shutil.copytree(cli_dir, damaged)
    segment = Path(bryo.index_segments(damaged)[0])
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0xFF
    segment.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="corrupted segment"):
        bryo.index_segments(damaged)

    # Documents prepared under other settings; a generator that fails
    # mid-way; a doc_id twice: each refused, the index left as it was.
    target = tmp_path / "target"
    bryo.index_create(target, language="python")
    other = tmp_path / "other"
    bryo.index_create(other, language="python", k=bryo.index_settings(target)["k"] + 1)
    files = {n: docs[n] for n in sorted(docs)[:6]}
    good = bryo.index_prepare(texts_batch(files), dir=target)
    bryo.index_commit(target, [good], tag="fall")
    before = (info_lines(target), bryo.index_documents(target), bryo.index_segments(target))
    assert before[1].num_rows == 6

    more = {n: docs[n] for n in sorted(docs)[6:12]}
    foreign = bryo.index_prepare(texts_batch(more), dir=other)
    with pytest.raises(ValueError, match="settings"):
        bryo.index_commit(target, [foreign], tag="spring")

    def failing():
        yield bryo.index_prepare(texts_batch(more), dir=target)
        raise RuntimeError("worker lost")

    with pytest.raises(RuntimeError, match="worker lost"):
        bryo.index_commit(target, failing(), tag="spring")
    again = bryo.index_prepare(texts_batch(more), dir=target)
    with pytest.raises(ValueError, match="given twice"):
        bryo.index_commit(target, [again, again], tag="spring")
    with pytest.raises(ValueError, match="no `hashes` column"):
        bryo.index_commit(target, [again.drop_columns(["hashes"])], tag="spring")
    after = (info_lines(target), bryo.index_documents(target), bryo.index_segments(target))
    assert after[0] == before[0] and after[1].equals(before[1]) and after[2] == before[2]
    assert sorted(p.name for p in (target / "segments").iterdir()) == [Path(s).name for s in before[2]]

    # Still writable, the ids following on.
    summary = bryo.index_commit(target, again, tag="spring")
    assert summary["documents"] == 6
    assert bryo.index_documents(target).column("doc").to_pylist() == list(range(12))
