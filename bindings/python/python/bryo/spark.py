"""bryo on Apache Spark: copied passages across a corpus no single machine holds.

    python -m bryo.spark --input DOCS --output DIR [-l LANG] [options]
    spark-submit --master URL -m bryo.spark ...   (see the README)

DOCS is Parquet or JSON Lines with the columns ``id`` (document id) and
``text`` (string, or binary for undecoded bytes), and with ``-d`` a
``submission`` column (the documents of one name are one submission, as
``bryo compare -d`` groups a directory); ``-b PATH`` files of base code and
``--old PATH`` files of earlier terms have the same columns. ``--against
DIR`` adds the submissions of a ``bryo index`` (postings read from its
Parquet segments) like old ones; ``--add-to DIR`` adds the new documents
to an index afterwards. Submissions are numbered as ``bryo compare``
numbers them (new, then old, then archived), and every count below is of
submissions. The stages are those of ``bryo compare``:

1. fingerprint — ``mapInArrow`` runs the CLI's front-end and winnowing on
   each partition of documents (:func:`bryo.fingerprint`);
2. index — postings are repartitioned by hash, those of a hash found in
   base code dropped (the k-gram hashes of the base documents, broadcast),
   and the common-code rule of ``bryo compare`` applied: without ``-m``
   the rarity rule (a hash in more than half of the documents, identical
   ones counted once, and more than 10, is template code; the histogram of
   the other shared hashes gives the seed limit ``L`` of the records
   budget), with ``-m M`` MOSS's (hashes in more than ``M`` documents
   excluded); every other shared hash emits its
   pairs of documents — a hash in more than ``L`` pairs each document with
   the next ``⌈L/2⌉`` in :func:`bryo.seed_order`'s order, as the CLI does;
3. pairs — pairs are counted (shared fingerprints, each hash counting the
   smaller number of occurrences on either side, at most 16) and ranked;
   the best ``max(4n, n + 200)`` (all with ``-n 0`` or a minimum
   similarity) go on, and pairs of identical documents, reported whole when
   they are not among them (as the CLI adds them);
4. fragments — each pair is joined back to its two documents and the hashes
   excluded in them, and compared alone on a worker with the base
   documents (:func:`bryo.compare` with ``pairs`` and ``base``), which
   gives the CLI's fragments and scores; under the rarity rule the pair
   also gets the number of documents holding each of its matched hashes,
   so that short matches of widespread code are discounted in
   ``similarity`` as ``bryo compare`` discounts them (``--no-discount``
   turns it off, as for the CLI); ranked by matched symbols and cut to
   ``n``.

Output in DIR: ``pairs.parquet`` (``doc_a``, ``doc_b``, ``similarity``,
``a_percent``, ``b_percent``, ``fragments`` with byte offsets and lines on
both sides, and more), ``documents.parquet`` (every input document: whether
it could be compared and why not, its share inside copied passages and the
passages), and ``run.json`` (options, counts, the limits the common-code
rule took and the length below which the rarity discount applied, as the
CLI's JSON reports them in ``stats``, time per stage, shuffle bytes).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.request
from pathlib import Path

import pyarrow as pa

import bryo

# `bryo_match::DEFAULT_OCCURRENCE_CAP`: occurrences of one hash kept per document.
OCCURRENCE_CAP = 16

# `bryo_match::Rarity::default()`, the rule of `bryo compare` without -m.
RARITY_TEMPLATE_SHARE = 0.5
RARITY_TEMPLATE_MIN = 10
RARITY_RECORDS_PER_FINGERPRINT = 2
RARITY_MIN_RECORDS = 1 << 18
RARITY_MIN_SEED_LIMIT = 10

# The fingerprint stage's output: postings and one row per document, in one
# schema (`is_doc` tells them apart) so that documents are analyzed once.
_FP_SCHEMA = (
    "is_doc boolean, hash long, doc_id string, position int, byte_start long, byte_end long, "
    "ok boolean, reason string, language string, frontend string, symbols long, "
    "fingerprints long, content_fingerprint long, bytes long, submission string, origin int"
)

# Where a submission comes from, in the order `bryo compare` numbers them:
# the new ones, then `--old` ones, then those of the `--against` index.
NEW, OLD, ARCHIVE = 0, 1, 2

_PART = (
    "a_byte_start long, a_byte_end long, b_byte_start long, b_byte_end long, "
    "a_first_line long, a_last_line long, b_first_line long, b_last_line long, symbols long"
)
# A fragment: its files on both sides, and the exact matches a merged one
# is made of.
_FRAGMENT = f"file_a string, file_b string, {_PART}, parts array<struct<{_PART}>>"
_PAIR_SCHEMA = (
    "doc_a string, doc_b string, similarity double, a_percent double, b_percent double, "
    "shared_fingerprints long, symbols_a long, symbols_b long, covered_a long, covered_b long, "
    "lines_matched long, longest_fragment long, identical boolean, "
    f"fragments array<struct<{_FRAGMENT}>>, a_old boolean, b_old boolean, sub_a long, sub_b long"
)


class InputError(Exception):
    """The input cannot be read as documents; the message says why."""


def _as_long(value: int) -> int:
    """An unsigned 64-bit value as Spark's signed long, bit for bit."""
    return value - (1 << 64) if value >= 1 << 63 else value


def _signed(array: pa.Array) -> pa.Array:
    """A uint64 array as int64 (Spark has no unsigned type), bit for bit."""
    return array.view(pa.int64())


def _fingerprint_partitions(options: dict):
    def run(batches):
        import bryo as worker_bryo

        for b in batches:
            docs = pa.RecordBatch.from_arrays(
                [b.column("id"), b.column("text")], names=["doc_id", "text"]
            )
            postings, documents = worker_bryo.fingerprint(docs, **options)
            n, d = postings.num_rows, documents.num_rows
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([False] * n, pa.bool_()),
                    _signed(postings.column("hash")),
                    postings.column("doc_id"),
                    postings.column("position").cast(pa.int32()),
                    postings.column("byte_start").cast(pa.int64()),
                    postings.column("byte_end").cast(pa.int64()),
                ]
                + [pa.nulls(n, t) for t in (pa.bool_(), pa.string(), pa.string(), pa.string())]
                + [pa.nulls(n, pa.int64()) for _ in range(4)]
                + [pa.nulls(n, pa.string()), pa.nulls(n, pa.int32())],
                names=_names(_FP_SCHEMA),
            )
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([True] * d, pa.bool_()),
                    pa.nulls(d, pa.int64()),
                    documents.column("doc_id"),
                    pa.nulls(d, pa.int32()),
                    pa.nulls(d, pa.int64()),
                    pa.nulls(d, pa.int64()),
                    documents.column("ok"),
                    documents.column("reason"),
                    documents.column("language"),
                    documents.column("frontend"),
                    documents.column("symbols").cast(pa.int64()),
                    documents.column("fingerprints").cast(pa.int64()),
                    _signed(documents.column("content_fingerprint")),
                    documents.column("bytes").cast(pa.int64()),
                    # The summary keeps the input's row order.
                    b.column("submission"),
                    b.column("origin"),
                ],
                names=_names(_FP_SCHEMA),
            )

    return run


def _names(ddl: str) -> list[str]:
    """Top-level column names of a flat DDL schema."""
    names, depth, field = [], 0, ""
    for ch in ddl + ",":
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        if ch == "," and depth == 0:
            names.append(field.strip().split(" ")[0])
            field = ""
        else:
            field += ch
    return names


def _fragment_partitions(
    options: dict, arrow_schema: pa.Schema, base: pa.RecordBatch | None, template_above: int | None
):
    """Compares each pair of submissions of a partition alone. Each side
    carries its name, number, whether it is old, its files (`doc_id`,
    `text`) and the hashes excluded in it; with `template_above` (the
    rarity discount applies) also `weights_a`/`weights_b`: its matched
    hashes with the number of distinct submissions holding them on the
    whole corpus. The result carries the submission numbers `sub_a` and
    `sub_b`, which order ties in the ranking as `bryo compare` does."""

    def run(batches):
        import bryo as worker_bryo

        for b in batches:
            if b.num_rows == 0:
                continue
            rows = b.to_pydict()
            files: dict[str, tuple[object, str, bool]] = {}
            excluded: set[int] = set()
            counts: dict[int, int] = {}
            numbers: dict[tuple[str, str], tuple[int, int]] = {}
            for name_a, name_b, sub_a, sub_b in zip(rows["doc_a"], rows["doc_b"], rows["sub_a"], rows["sub_b"]):
                numbers[(name_a, name_b)] = (sub_a, sub_b)
            for side in ("a", "b"):
                for name, old, held, ex in zip(
                    rows[f"doc_{side}"], rows[f"old_{side}"], rows[f"files_{side}"], rows[f"excluded_{side}"]
                ):
                    for f in held:
                        files[f["doc_id"]] = (f["text"], name, old)
                    excluded.update(ex or ())
                if template_above is not None:
                    for held in rows[f"weights_{side}"]:
                        counts.update((h["hash"], h["distinct"]) for h in held or ())
            ids = sorted(files)
            text_type = b.schema.field("files_a").type.value_type.field("text").type
            docs = pa.RecordBatch.from_arrays(
                [
                    pa.array(ids, pa.string()),
                    pa.array([files[i][0] for i in ids], text_type),
                    pa.array([files[i][1] for i in ids], pa.string()),
                    pa.array([files[i][2] for i in ids], pa.bool_()),
                ],
                names=["doc_id", "text", "submission", "old"],
            )
            pairs = pa.RecordBatch.from_arrays(
                [b.column("doc_a"), b.column("doc_b"), b.column("whole")],
                names=["doc_a", "doc_b", "whole"],
            )
            if "seeds" in b.schema.names:
                pairs = pairs.append_column("seeds", b.column("seeds"))
            hashes = pa.array(sorted(excluded), pa.int64()).view(pa.uint64())
            rarity = {}
            if template_above is not None:
                rarity = {
                    "hash_submissions": pa.RecordBatch.from_arrays(
                        [
                            pa.array(list(counts), pa.int64()).view(pa.uint64()),
                            pa.array(list(counts.values()), pa.uint32()),
                        ],
                        names=["hash", "submissions"],
                    ),
                    "template_above": template_above,
                }
            result, _ = worker_bryo.compare(
                docs, pairs=pairs, excluded_hashes=hashes, base=base, **options, **rarity
            )
            # A pair's shared fingerprints are those of the records that
            # brought it together, as `bryo compare` counts them (under the
            # rarity rule's budget, a wide hash pairs only some submissions).
            shared = dict(zip(zip(rows["doc_a"], rows["doc_b"]), rows["shared_fingerprints"]))
            names = list(zip(result.column("doc_a").to_pylist(), result.column("doc_b").to_pylist()))
            result = result.set_column(
                result.schema.get_field_index("shared_fingerprints"),
                "shared_fingerprints",
                pa.array([shared[p] for p in names], pa.uint64()),
            )
            old = dict(zip(rows["doc_a"], rows["old_a"])) | dict(zip(rows["doc_b"], rows["old_b"]))
            result = pa.RecordBatch.from_arrays(
                [
                    *result.columns,
                    pa.array([old[a] for a, _ in names], pa.bool_()),
                    pa.array([old[b] for _, b in names], pa.bool_()),
                    pa.array([numbers[p][0] for p in names], pa.int64()),
                    pa.array([numbers[p][1] for p in names], pa.int64()),
                ],
                names=[*result.schema.names, "a_old", "b_old", "sub_a", "sub_b"],
            )
            yield pa.Table.from_batches([result]).cast(arrow_schema).to_batches()[0]

    return run


def _merge_spans(spans):
    """Sorted, disjoint `(start, end)` byte ranges covering `spans`."""
    out = []
    for s, e in sorted(spans):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def _passage_partitions(batches):
    for b in batches:
        rows = b.to_pydict()
        docs, shares, passages, partners = [], [], [], []
        for doc, size, spans, others in zip(rows["doc_id"], rows["bytes"], rows["spans"], rows["partners"]):
            merged = _merge_spans((s["start"], s["end"]) for s in spans or ())
            covered = sum(e - s for s, e in merged)
            docs.append(doc)
            shares.append(covered / size if size else 0.0)
            passages.append([{"byte_start": s, "byte_end": e} for s, e in merged])
            partners.append(len(set(others or ())))
        yield pa.RecordBatch.from_pydict(
            {
                "doc_id": docs,
                "copied_share": shares,
                "passages": passages,
                "partners": partners,
            },
            schema=pa.schema(
                [
                    ("doc_id", pa.string()),
                    ("copied_share", pa.float64()),
                    (
                        "passages",
                        pa.list_(pa.struct([("byte_start", pa.int64()), ("byte_end", pa.int64())])),
                    ),
                    ("partners", pa.int64()),
                ]
            ),
        )


def rarity_seed_limit(histogram: dict[int, int], fingerprints: int) -> int | None:
    """The rarity rule's seed limit, as `bryo compare` computes it: the
    largest `L` for which the pair records fit the budget
    `max(2 × fingerprints, 2^18)` — every pair of a hash in at most `L`
    documents, `⌈L/2⌉` per document of a wider one — or `None` when every
    shared hash can pair all its documents. `histogram[n]` is the number of
    shared (not template) hashes in `n` documents."""
    budget = max(RARITY_RECORDS_PER_FINGERPRINT * fingerprints, RARITY_MIN_RECORDS)
    above = sum(n * c for n, c in histogram.items())
    full = 0
    best = max(RARITY_MIN_SEED_LIMIT, 2)
    for n in range(max(histogram, default=-1) + 1):
        count = histogram.get(n, 0)
        full += n * (n - 1) // 2 * count
        above -= n * count
        if above == 0 and full <= budget:
            return None
        if full + (n + 1) // 2 * above > budget:
            break
        best = max(best, n)
    return best


def _seed_order_partitions(batches):
    """Adds each row's place in the order the rarity rule pairs the
    documents of a hash above the seed limit (`bryo.seed_order`), as a
    signed long that sorts as the unsigned key does."""
    import pyarrow.compute as pc

    import bryo as worker_bryo

    flip = pa.scalar(1 << 63, pa.uint64())
    for b in batches:
        keys = worker_bryo.seed_order(
            b.column("hash").view(pa.uint64()), b.column("submission").cast(pa.uint32())
        )
        ordered = pc.bit_wise_xor(keys, flip).view(pa.int64())
        yield pa.RecordBatch.from_arrays(
            [*b.columns, ordered], names=[*b.schema.names, "order_key"]
        )


def _sampled_records(kept, seed_limit: int):
    """The pair records of hashes in more than `seed_limit` submissions:
    ordered by `bryo.seed_order`, each submission paired with the next
    `min(⌈L/2⌉, (n − 1)/2)` cyclically, as `bryo compare` samples them
    (never two old ones)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    wide = kept.where(F.col("docs") > seed_limit).select(
        "hash", "occurrences", "docs", "old", F.col("sub").alias("submission")
    )
    wide = wide.mapInArrow(
        _seed_order_partitions,
        "hash long, occurrences long, docs long, old boolean, submission long, order_key long",
    ).withColumn(
        "place",
        F.row_number().over(Window.partitionBy("hash").orderBy("order_key", "submission")) - 1,
    )
    reach = F.least(F.lit((seed_limit + 1) // 2), F.floor((F.col("docs") - 1) / 2))
    x = wide.withColumn("step", F.explode(F.sequence(F.lit(1), reach.cast("int")))).select(
        "hash",
        F.col("submission").alias("x_sub"),
        F.col("occurrences").alias("x_occ"),
        F.col("old").alias("x_old"),
        ((F.col("place") + F.col("step")) % F.col("docs")).alias("place"),
    )
    y = wide.select(
        "hash",
        "place",
        F.col("submission").alias("y_sub"),
        F.col("occurrences").alias("y_occ"),
        F.col("old").alias("y_old"),
    )
    return (
        x.join(y, ["hash", "place"])
        .where(~(F.col("x_old") & F.col("y_old")))
        .select(
            F.least("x_sub", "y_sub").alias("a"),
            F.greatest("x_sub", "y_sub").alias("b"),
            F.least("x_occ", "y_occ").alias("c"),
            "hash",
        )
    )


def _read_documents(spark, path: str, fmt: str | None, submissions: bool = False):
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    p = Path(path)
    if fmt is None:
        names = [p.name] if p.is_file() else [c.name for c in p.iterdir()] if p.is_dir() else [p.name]
        if any(n.endswith(".parquet") for n in names):
            fmt = "parquet"
        elif any(n.endswith((".jsonl", ".json", ".ndjson")) for n in names):
            fmt = "jsonl"
        else:
            raise InputError(
                f"{path}: cannot tell the format (no .parquet, .jsonl or .json files); pass --format"
            )
    try:
        if fmt == "parquet":
            df = spark.read.parquet(path)
        else:
            df = spark.read.option("mode", "FAILFAST").json(path)
    except AnalysisException as e:
        raise InputError(f"{path}: cannot read as {fmt}: {e}") from None
    except Exception as e:  # Spark wraps malformed records in Py4J errors.
        raise InputError(f"{path}: malformed {fmt} input: {str(e).splitlines()[0]}") from None
    if "_corrupt_record" in df.columns:
        raise InputError(f"{path}: malformed JSON Lines (a line is not a JSON object)")
    missing = [c for c in ("id", "text") if c not in df.columns]
    if missing:
        raise InputError(
            f"{path}: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
            f"(found: {', '.join(df.columns) or 'none'}); documents need `id` and `text`"
        )
    text_type = dict(df.dtypes)["text"]
    if text_type not in ("string", "binary"):
        raise InputError(f"{path}: column `text` must be string or binary, not {text_type}")
    if not submissions:
        return df.select(F.col("id").cast("string").alias("id"), F.col("text"))
    if "submission" not in df.columns:
        raise InputError(
            f"{path}: -d groups documents by their `submission` column, which is missing "
            f"(found: {', '.join(df.columns)})"
        )
    return df.select(
        F.col("id").cast("string").alias("id"),
        F.col("text"),
        F.col("submission").cast("string").alias("submission"),
    )


def _read_base(spark, paths: list[str]) -> pa.RecordBatch | None:
    """The base documents of every `-b` file, in one batch for the driver
    and the fragment stage (base code is small: a course's handout, a
    template)."""
    if not paths:
        return None
    ids, texts = [], []
    for path in paths:
        if "://" not in path and not Path(path).exists():
            raise InputError(f"{path}: base code file not found")
        for row in _read_documents(spark, path, None).collect():
            doc, text = row["id"], row["text"]
            if doc is None:
                raise InputError(f"{path}: a base document has a null `id`")
            if text is None:
                raise InputError(f"{path}: base document `{doc}` has no text (null)")
            ids.append(doc)
            texts.append(bytes(text) if isinstance(text, (bytes, bytearray)) else text.encode())
    if len(set(ids)) != len(ids):
        raise InputError(f"{', '.join(paths)}: base document ids must be distinct")
    return pa.RecordBatch.from_arrays(
        [pa.array(ids, pa.string()), pa.array(texts, pa.binary())], names=["doc_id", "text"]
    )


def _base_hashes(base: pa.RecordBatch, options: dict) -> list[int]:
    """The hash of every k-gram of the base documents (winnowing with a
    window of one keeps them all), as signed longs: `bryo compare` drops
    a shared hash that occurs anywhere in base code."""
    postings, _ = bryo.fingerprint(base, **dict(options, w=1))
    return sorted(set(_signed(postings.column("hash")).to_pylist()))


def _shuffle_bytes(spark) -> int | None:
    """Shuffle bytes written by this application so far, from Spark's REST
    API (`None` where the UI is off)."""
    sc = spark.sparkContext
    url = sc.uiWebUrl
    if not url:
        return None
    try:
        with urllib.request.urlopen(f"{url}/api/v1/applications/{sc.applicationId}/stages", timeout=10) as r:
            stages = json.load(r)
    except OSError:
        return None
    return sum(s.get("shuffleWriteBytes", 0) for s in stages)


def _front_end(args) -> dict:
    """The job's parser, normalization and token normalization as an index
    records them (`auto` decided where the language is given)."""
    return bryo.front_end(
        language=args.language, parser=args.parser, normalization=args.normalization,
        normalize=args.normalize,
    )


def _index_options(args) -> dict:
    """The settings of the `--against` index, checked against the job's
    options, which take the index's where not given (as `bryo compare
    --against` does): a language, text mode, k or w other than the index's
    is an error, and so are a parser, normalization or token normalization
    other than the index's when given."""
    try:
        settings = bryo.index_settings(args.against)
    except ValueError as e:
        raise InputError(f"--against {args.against}: {e}") from None
    if args.normalize is not None and args.normalize != settings["normalize"]:
        made = {True: "with --normalize", False: "without --normalize", "auto": "with automatic token normalization"}
        raise InputError(
            f"--against {args.against}: the index was made {made[settings['normalize']]}; "
            "leave out --normalize and --no-normalize"
        )
    args.normalize = settings["normalize"]
    for name, given, stored in (
        ("-l", args.language, settings["language"]),
        ("--text-mode", args.text_mode, settings["text_mode"]),
        ("-k", args.k, settings["k"]),
        ("-w", args.w, settings["w"]),
        ("--parser", args.parser, settings["parser"]),
        ("--normalization", args.normalization, settings["normalization"]),
    ):
        if given is not None and given != stored:
            raise InputError(
                f"--against {args.against}: the index was made with {name} {stored}, not {given}; "
                "leave the option out to take the index's"
            )
    args.language = settings["language"]
    args.text_mode = settings["text_mode"]
    args.k, args.w = settings["k"], settings["w"]
    args.parser, args.normalization = settings["parser"], settings["normalization"]
    return settings


def _archive(spark, directory: str):
    """The submissions of a `bryo index`, as `bryo compare --against`
    names them (`NAME [TAG]`, files `PATH [TAG]`): their summary rows and
    texts from the catalogue (the driver reads it), their postings read by
    Spark from the index's Parquet segments, never fingerprinted again."""
    from pyspark.sql import functions as F

    try:
        table = pa.Table.from_batches([bryo.index_documents(directory)])
        segments = bryo.index_segments(directory)
    except ValueError as e:
        raise InputError(f"--against {directory}: {e}") from None
    tags = table.column("tag").to_pylist()
    labels = [f"[{t}]" if t else "[archive]" for t in tags]
    rows = {
        "doc": table.column("doc").cast(pa.int64()),
        "doc_id": [f"{p} {l}" for p, l in zip(table.column("path").to_pylist(), labels)],
        "submission": [f"{s} {l}" for s, l in zip(table.column("submission").to_pylist(), labels)],
        "text": table.column("text"),
        "symbols": table.column("symbols").cast(pa.int64()),
        "content_fingerprint": pa.chunked_array(
            [c.view(pa.int64()) for c in table.column("content_fingerprint").chunks], pa.int64()
        ),
    }
    archived = pa.table(rows)
    # Submissions in catalogue order, after the new and old ones.
    first: dict[str, int] = {}
    for i, name in enumerate(rows["submission"]):
        first.setdefault(name, i)
    archived = archived.append_column(
        "rank", pa.array([first[n] for n in rows["submission"]], pa.int64())
    )
    documents = spark.createDataFrame(archived)
    if segments:
        segments_df = spark.read.parquet(*segments)
        # Spark reads the unsigned 64-bit hashes as decimal(20,0): back to
        # its signed long, bit for bit.
        signed = F.expr(
            "CAST(CASE WHEN hash >= 9223372036854775808BD THEN hash - 18446744073709551616BD "
            "ELSE hash END AS BIGINT)"
        )
        if dict(segments_df.dtypes)["hash"] == "bigint":
            signed = F.col("hash")
        postings = (
            segments_df.select(signed.alias("hash"), F.col("doc").cast("long").alias("doc"))
            .join(documents.select("doc", "doc_id"), "doc")
            .select("hash", "doc_id")
        )
    else:
        postings = spark.createDataFrame([], "hash long, doc_id string")
    return documents, postings


def _prepare_partitions(directory: str, max_file_size: int):
    """Analyzes each partition's documents for the index at `directory`
    (`bryo.index_prepare`), each prepared batch passed on whole as one
    Arrow IPC payload (its columns are the index's business)."""

    def run(batches):
        import bryo as worker_bryo

        for b in batches:
            if b.num_rows == 0:
                continue
            docs = pa.RecordBatch.from_arrays(
                [b.column("id"), b.column("text"), b.column("submission")],
                names=["doc_id", "text", "submission"],
            )
            prepared = worker_bryo.index_prepare(docs, dir=directory, max_file_size=max_file_size)
            sink = pa.BufferOutputStream()
            with pa.ipc.new_stream(sink, prepared.schema) as writer:
                writer.write_batch(prepared)
            yield pa.RecordBatch.from_arrays([pa.array([sink.getvalue().to_pybytes()], pa.binary())], names=["payload"])

    return run


def _check_add_to(args, k: int, w: int, create: bool = False) -> None:
    """`--add-to`: the index must have the job's options (checked before the
    job starts when it exists); with `create`, a missing one is created
    with them."""
    target = Path(args.add_to)
    try:
        if not (target / "catalog.sqlite").exists():
            if not create:
                return
            bryo.index_create(
                str(target), language=args.language, kind=args.kind, text_mode=args.text_mode,
                k=k, w=w, parser=args.parser, normalization=args.normalization,
                normalize=args.normalize,
            )
        settings = bryo.index_settings(str(target))
    except ValueError as e:
        raise InputError(f"--add-to {target}: {e}") from None
    job = {
        "language": args.language,
        "text_mode": args.text_mode or "chars",
        "k": k,
        "w": w,
        **_front_end(args),
    }
    differ = [f"{key} {settings[key]} (the job: {job[key]})" for key in job if settings[key] != job[key]]
    if differ:
        raise InputError(f"--add-to {target}: the index was made with other options: " + ", ".join(differ))


def _add_to_index(docs, args, partitions: int, k: int, w: int) -> dict:
    """`--add-to`: the new documents analyzed for the index on the workers,
    committed by the driver as one segment and one catalogue transaction
    (`bryo.index_commit`); the index is created with the job's options
    when it does not exist."""
    from pyspark.sql import functions as F

    target = Path(args.add_to)
    _check_add_to(args, k, w, create=True)
    payloads = (
        docs.where(F.col("origin") == NEW)
        .select("id", "text", "submission")
        .repartition(partitions)
        .mapInArrow(_prepare_partitions(str(target), args.max_file_size), "payload binary")
    )

    def prepared():
        for row in payloads.toLocalIterator():
            with pa.ipc.open_stream(row["payload"]) as reader:
                yield from reader

    try:
        return bryo.index_commit(str(target), prepared(), tag=args.tag)
    except ValueError as e:
        raise InputError(f"--add-to {target}: {e}") from None


def run(spark, args) -> dict:
    """Runs the job; returns what `run.json` records."""
    from pyspark import StorageLevel
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    moss = args.max_submissions is not None
    if moss and args.max_submissions < 2:
        raise InputError(
            "-m must be at least 2: it bounds the pairs a shared hash emits (m(m-1)/2); "
            "without -m the job applies the rarity rule, as `bryo compare` does"
        )
    if args.normalize is True and args.parser == "lexer":
        raise InputError(
            "--normalize works on syntax trees: use it with --parser tree-sitter (its default) "
            "or without --parser"
        )
    index = None
    if args.against:
        index = _index_options(args)
    if args.normalize is None:
        # As `bryo compare`: Java, C and C++ normalized, unless the lexer
        # was asked for.
        args.normalize = False if args.parser == "lexer" else "auto"
    k, w = bryo.thresholds(
        language=args.language, kind=args.kind, text_mode=args.text_mode, k=args.k, w=args.w
    )
    if args.add_to:
        _check_add_to(args, k, w)
    options = {
        "language": args.language,
        "text_mode": args.text_mode,
        "k": k,
        "w": w,
        "parser": args.parser,
        "normalization": args.normalization,
        "normalize": args.normalize,
    }
    fp_options = dict(options, max_file_size=args.max_file_size)
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = round(now - clock, 3)
        clock = now

    directory = args.directory
    inputs = [(args.input, NEW)] + [(path, OLD) for path in args.old]
    docs = None
    for path, origin in inputs:
        if origin == OLD and "://" not in path and not Path(path).exists():
            raise InputError(f"{path}: old documents not found")
        part = _read_documents(spark, path, args.format, directory)
        if not directory:
            part = part.withColumn("submission", F.col("id"))
        part = part.withColumn("origin", F.lit(origin))
        docs = part if docs is None else docs.unionByName(part)
    total, distinct = docs.agg(F.count("*"), F.countDistinct("id")).first()
    if docs.where(F.col("id").isNull()).limit(1).count():
        raise InputError(f"{args.input}: a document has a null `id`")
    if distinct != total:
        raise InputError(
            f"{', '.join(p for p, _ in inputs)}: {total - distinct} duplicate ids; ids must be distinct"
        )
    if directory:
        if docs.where(F.col("submission").isNull()).limit(1).count():
            raise InputError(f"{args.input}: a document has a null `submission` (-d)")
        mixed = (
            docs.groupBy("submission").agg(F.countDistinct("origin").alias("n")).where("n > 1").first()
        )
        if mixed is not None:
            raise InputError(
                f"submission `{mixed['submission']}` has both new and old documents (--old)"
            )
    base = _read_base(spark, args.base)
    lap("read")

    partitions = args.partitions or max(2, spark.sparkContext.defaultParallelism * 2)
    fp = (
        docs.repartition(partitions)
        .mapInArrow(_fingerprint_partitions(fp_options), _FP_SCHEMA)
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    n_postings = fp.where(~F.col("is_doc")).count()
    lap("fingerprint")

    summary = fp.where("is_doc").select(
        "doc_id", "submission", "origin", F.lit(0).cast("long").alias("rank"), "ok", "reason",
        "language", "frontend", "symbols", "fingerprints", "content_fingerprint", "bytes",
    )
    postings = fp.where(~F.col("is_doc")).select("hash", "doc_id")
    texts = docs.select(F.col("id").alias("doc_id"), "text")
    n_archived = 0
    if index is not None:
        archived, archived_postings = _archive(spark, args.against)
        archived_postings = archived_postings.persist(StorageLevel.MEMORY_AND_DISK)
        per_doc = archived_postings.groupBy("doc_id").agg(F.count("*").alias("fingerprints"))
        summary = summary.unionByName(
            archived.join(per_doc, "doc_id", "left").select(
                "doc_id",
                "submission",
                F.lit(ARCHIVE).alias("origin"),
                "rank",
                F.lit(True).alias("ok"),
                F.lit(None).cast("string").alias("reason"),
                F.lit(index["language"]).cast("string").alias("language"),
                F.lit(None).cast("string").alias("frontend"),
                "symbols",
                F.coalesce("fingerprints", F.lit(0)).cast("long").alias("fingerprints"),
                "content_fingerprint",
                F.length("text").cast("long").alias("bytes"),
            )
        )
        postings = postings.unionByName(archived_postings)
        # Archived texts are bytes; the input's may be strings (UTF-8).
        texts = texts.select("doc_id", F.col("text").cast("binary")).unionByName(
            archived.select("doc_id", F.col("text").cast("binary"))
        )
        n_archived = archived.count()
        n_postings += archived_postings.count()
    base_docs = []
    if base is not None:
        # Passages of base code are never matched: their hashes, broadcast
        # (base code is small), leave the postings before any count.
        base_hashes = spark.createDataFrame(
            [(h,) for h in _base_hashes(base, fp_options)], "hash long"
        )
        postings = postings.join(F.broadcast(base_hashes), "hash", "left_anti")
        # A document identical to a base document is not reported as a copy.
        base_docs = [
            (d["symbols"], d["content_fingerprint"])
            for d in bryo.fingerprint(base, **fp_options)[1].to_pylist()
            if d["ok"] and d["symbols"]
        ]
    # Every submission with a compared document, numbered as `bryo compare`
    # numbers them (new ones, then old ones, each in name order): the
    # numbers orient pairs, break ties in the ranking and draw the rarity
    # rule's sample. Numbered in a sorted RDD: no window moves every name
    # to one partition.
    ok_docs = summary.where("ok")
    numbers = (
        ok_docs.select("origin", "rank", "submission")
        .distinct()
        .orderBy("origin", "rank", "submission")
        .rdd.zipWithIndex()
        .map(lambda row: (row[0][2], row[0][0] != NEW, row[1]))
        .toDF("submission string, old boolean, sub long")
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    # Each compared document with its submission's number, and whether it is
    # the first of its content in that order (a document identical to an
    # earlier one does not make a passage more common under the rarity
    # rule).
    compared = (
        ok_docs.join(numbers, "submission")
        .select(
            "doc_id",
            "symbols",
            "content_fingerprint",
            "sub",
            "old",
            (
                F.row_number().over(
                    Window.partitionBy("symbols", "content_fingerprint").orderBy("sub", "doc_id")
                )
                == 1
            ).alias("canonical"),
        )
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    # Occurrences of a hash per submission (at most 16 per document, as
    # `bryo compare` keeps them), and the submissions holding it: all of
    # them (MOSS's -m) and those through a first-of-its-content document.
    by_hash = Window.partitionBy("hash")
    occurrences = (
        postings.repartition(partitions, "hash")
        .groupBy("hash", "doc_id")
        .agg(F.count("*").alias("n"))
        .join(compared.select("doc_id", "sub", "old", "canonical"), "doc_id")
        .groupBy("hash", "sub")
        .agg(
            F.sum(F.least(F.col("n"), F.lit(OCCURRENCE_CAP))).alias("occurrences"),
            F.max(F.col("canonical").cast("long")).alias("canonical"),
            F.first("old").alias("old"),
        )
        .withColumn("docs", F.count("*").over(by_hash))
        .withColumn("distinct", F.sum("canonical").over(by_hash))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    if moss:
        exclude_above = args.max_submissions
        common = F.col("docs") > exclude_above
    else:
        # Template code: in more than half of the submissions (identical
        # ones counted once), and in more than ten.
        distinct_subs = (
            compared.where(F.col("canonical") & (F.col("symbols") > 0)).select("sub").distinct().count()
        )
        exclude_above = max(int(RARITY_TEMPLATE_SHARE * distinct_subs), RARITY_TEMPLATE_MIN)
        common = F.col("distinct") > exclude_above
    common = (F.col("docs") >= 2) & common
    excluded = occurrences.where(common).groupBy("sub").agg(F.collect_list("hash").alias("excluded"))
    kept = occurrences.where((F.col("docs") >= 2) & ~common)
    hash_stats = occurrences.agg(
        F.countDistinct(F.when(F.col("docs") >= 2, F.col("hash"))).alias("shared"),
        F.countDistinct(F.when(common, F.col("hash"))).alias("excluded"),
        F.max("docs").alias("widest"),
    ).first()
    # The seeding budget: hashes per number of submissions sharing them.
    seed_limit = None
    if not moss:
        histogram = {
            r["docs"]: r["hashes"]
            for r in kept.groupBy("hash").agg(F.first("docs").alias("docs"))
            .groupBy("docs").agg(F.count("*").alias("hashes")).collect()
        }
        seed_limit = rarity_seed_limit(histogram, n_postings)
    # The rarity discount: as `bryo compare`, under the rarity rule when the
    # template threshold is above 10 and some shared hash is matched. Each
    # submission of a pair then carries its matched hashes with the distinct
    # submissions holding them (the weights the fragment stage needs).
    discount_below = None
    weights = None
    if not moss and hash_stats["shared"] > hash_stats["excluded"]:
        discount_below = (
            bryo.discount_below(k=k, template_above=exclude_above, discount=args.discount) or None
        )
    if discount_below is not None:
        weights = kept.groupBy("sub").agg(
            F.collect_list(F.struct("hash", "distinct")).alias("weights")
        )
    lap("index")

    narrow = kept if seed_limit is None else kept.where(F.col("docs") <= seed_limit)
    x, y = narrow.alias("x"), narrow.alias("y")
    records = x.join(
        y,
        (F.col("x.hash") == F.col("y.hash"))
        & (F.col("x.sub") < F.col("y.sub"))
        & ~(F.col("x.old") & F.col("y.old")),
    ).select(
        F.col("x.sub").alias("a"),
        F.col("y.sub").alias("b"),
        F.least(F.col("x.occurrences"), F.col("y.occurrences")).alias("c"),
        F.col("x.hash").alias("hash"),
    )
    if seed_limit is not None:
        records = (
            records.unionByName(_sampled_records(kept, seed_limit))
            .persist(StorageLevel.MEMORY_AND_DISK)
        )
    candidates = (
        records.groupBy("a", "b")
        .agg(F.sum("c").alias("shared_fingerprints"))
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    n_candidates = candidates.count()
    all_candidates = candidates
    n = args.max_pairs
    if n > 0 and args.min_similarity == 0:
        scored = max(4 * n, n + 200)
        candidates = candidates.orderBy(F.desc("shared_fingerprints"), "a", "b").limit(scored)
    # Identical submissions are reported whatever they share (`bryo compare`
    # finds them before winnowing): the same multiset of documents with
    # symbols, documents identical to base code left out, not both old.
    counted = compared.where(F.col("symbols") > 0)
    for symbols, content in base_docs:
        counted = counted.where(
            (F.col("symbols") != symbols) | (F.col("content_fingerprint") != _as_long(content))
        )
    keys = counted.groupBy("sub").agg(
        F.to_json(
            F.sort_array(F.collect_list(F.struct("content_fingerprint", "symbols")))
        ).alias("key"),
        F.first("old").alias("old"),
    )
    identical = (
        keys.alias("p")
        .join(
            keys.alias("q"),
            (F.col("p.key") == F.col("q.key"))
            & (F.col("p.sub") < F.col("q.sub"))
            & ~(F.col("p.old") & F.col("q.old")),
        )
        .select(F.col("p.sub").alias("a"), F.col("q.sub").alias("b"))
    )
    # An identical pair outside the chosen candidates is reported whole
    # (similarity 1, no shared fingerprint), as `bryo compare` adds it.
    top = candidates.select("a", "b", "shared_fingerprints")
    chosen = top.withColumn("whole", F.lit(False)).unionByName(
        identical.join(top, ["a", "b"], "left_anti")
        .distinct()
        .withColumn("shared_fingerprints", F.lit(0).cast("long"))
        .withColumn("whole", F.lit(True))
    )
    n_chosen = chosen.persist(StorageLevel.MEMORY_AND_DISK).count()
    n_submissions = numbers.count()
    lap("pairs")

    # Each side of a pair: its name, whether it is old, its compared
    # documents and the hashes excluded in it.
    files = (
        texts.join(compared.select("doc_id", "sub"), "doc_id")
        .groupBy("sub")
        .agg(F.collect_list(F.struct("doc_id", "text")).alias("files"))
    )
    sides = numbers.join(files, "sub").join(excluded, "sub", "left")
    if weights is not None:
        sides = sides.join(weights, "sub", "left")
    side = lambda s: sides.select(  # noqa: E731 — a column renamer for one side of a pair
        *[
            F.col(c).alias({"sub": s, "submission": f"doc_{s}"}.get(c, f"{c}_{s}"))
            for c in sides.columns
        ]
    )
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import _parse_datatype_string

    arrow_schema = to_arrow_schema(_parse_datatype_string(_PAIR_SCHEMA))
    joined = chosen.join(side("a"), "a").join(side("b"), "b")
    if seed_limit is not None:
        # When the seed limit cuts, a pair is seeded, as in `bryo compare`,
        # only by the hashes of the records that brought it together (a
        # hash above the limit pairs a sample), not by every hash it shares.
        seeds = (
            records.join(chosen.where(~F.col("whole")).select("a", "b"), ["a", "b"])
            .groupBy("a", "b")
            .agg(F.collect_set("hash").alias("seeds"))
        )
        joined = joined.join(seeds, ["a", "b"], "left")
    joined = joined.withColumnRenamed("a", "sub_a").withColumnRenamed("b", "sub_b")
    pair_parts = max(1, min(partitions, n_chosen // 8 + 1))
    ranking = [
        F.desc(F.col("covered_a") + F.col("covered_b")),
        F.desc("shared_fingerprints"),
        "sub_a",
        "sub_b",
    ]
    results = (
        joined.repartition(pair_parts)
        .mapInArrow(
            _fragment_partitions(
                dict(options, max_submissions=0 if moss else None, discount=args.discount),
                arrow_schema,
                base,
                None if weights is None else exclude_above,
            ),
            _PAIR_SCHEMA,
        )
        .where((F.col("similarity") >= args.min_similarity) | F.col("identical"))
        .orderBy(*ranking)
    )
    if n > 0:
        results = results.limit(n)
    results = (
        results.withColumn("rank", F.row_number().over(Window.orderBy(*ranking)))
        .drop("sub_a", "sub_b")
        .persist(StorageLevel.MEMORY_AND_DISK)
    )
    n_pairs = results.count()
    lap("fragments")

    out = Path(args.output)
    results.orderBy("rank").coalesce(1).write.mode("overwrite").parquet(str(out / "pairs.parquet"))
    spans = results.select(
        F.col("doc_b").alias("other"), F.explode("fragments").alias("f")
    ).select(
        F.col("f.file_a").alias("doc_id"),
        "other",
        F.struct(F.col("f.a_byte_start").alias("start"), F.col("f.a_byte_end").alias("end")).alias("span"),
    )
    spans = spans.unionByName(
        results.select(F.col("doc_a").alias("other"), F.explode("fragments").alias("f")).select(
            F.col("f.file_b").alias("doc_id"),
            "other",
            F.struct(F.col("f.b_byte_start").alias("start"), F.col("f.b_byte_end").alias("end")).alias("span"),
        )
    )
    per_doc = (
        summary.select("doc_id", "bytes")
        .join(
            spans.groupBy("doc_id").agg(F.collect_list("span").alias("spans"), F.collect_list("other").alias("partners")),
            "doc_id",
            "left",
        )
        .mapInArrow(
            _passage_partitions,
            "doc_id string, copied_share double, passages array<struct<byte_start long, byte_end long>>, partners long",
        )
    )
    documents = (
        summary.withColumn("old", F.col("origin") != NEW)
        .withColumn("archived", F.col("origin") == ARCHIVE)
        .drop("content_fingerprint", "origin", "rank")
        .join(per_doc, "doc_id", "left")
        .orderBy("doc_id")
    )
    documents.coalesce(1).write.mode("overwrite").parquet(str(out / "documents.parquet"))
    n_docs, n_skipped = documents.agg(F.count("*"), F.sum(F.when(~F.col("ok"), 1).otherwise(0))).first()
    lap("report")
    added = None
    if args.add_to:
        added = _add_to_index(docs, args, partitions, k, w)
        lap("add")

    record = {
        "schema": "bryo.spark/1",
        "bryo_version": bryo.__version__,
        "input": args.input,
        "old": args.old,
        "against": args.against,
        "base": args.base,
        "options": {
            "language": args.language,
            "kind": args.kind,
            "text_mode": args.text_mode or "chars",
            "k": k,
            "w": w,
            "max_submissions": args.max_submissions,
            "common_rule": "max_submissions" if moss else "rarity",
            "directory": directory,
            "discount": None if moss else args.discount,
            "max_pairs": n,
            "min_similarity": args.min_similarity,
            "max_file_size": args.max_file_size,
            **_front_end(args),
            "partitions": partitions,
        },
        "counts": {
            "documents": n_docs,
            "skipped": n_skipped or 0,
            "postings": n_postings,
            "shared_hashes": hash_stats["shared"],
            "excluded_hashes": hash_stats["excluded"],
            "widest_hash_documents": hash_stats["widest"],
            "candidate_pairs": n_candidates,
            "submissions": n_submissions,
            "pairs_compared": n_chosen,
            "archived_documents": n_archived,
            "pairs": n_pairs,
            "base_documents": 0 if base is None else base.num_rows,
        },
        # As `bryo compare`'s JSON reports them in `stats` (null: none).
        "rule": {
            "template_above": None if moss else exclude_above,
            "seed_limit": seed_limit,
            "discount_below": discount_below,
        },
        "added": None
        if added is None
        else {
            "index": args.add_to,
            "tag": args.tag,
            "submissions": added["submissions"],
            "documents": added["documents"],
            "postings": added["postings"],
            "skipped": len(added["skipped"]),
        },
        "seconds": timings,
        "shuffle_write_bytes": _shuffle_bytes(spark),
        "spark": {"version": spark.version, "master": spark.sparkContext.master},
    }
    (out / "run.json").write_text(json.dumps(record, indent=2) + "\n")
    # Everything this run cached leaves the session's memory (a session may
    # run many jobs).
    for cached in (fp, occurrences, compared, numbers, all_candidates, chosen, results):
        cached.unpersist()
    if seed_limit is not None:
        records.unpersist()
    if index is not None:
        archived_postings.unpersist()
    return record


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bryo.spark",
        description="Pairs of documents sharing passages, with the passages, on Apache Spark "
        "(the stages and results of `bryo compare`).",
    )
    p.add_argument("--input", required=True, help="Parquet or JSON Lines documents with columns id, text")
    p.add_argument("--output", required=True, help="directory for pairs.parquet, documents.parquet, run.json")
    p.add_argument("--format", choices=["parquet", "jsonl"], help="input format (default: from the file names)")
    p.add_argument(
        "-d",
        "--directory",
        action="store_true",
        help="documents with the same `submission` column form one submission of several files "
        "(as bryo compare -d groups the files of a directory); pairs are of submissions",
    )
    p.add_argument(
        "--old",
        action="append",
        default=[],
        metavar="PATH",
        help="documents of earlier terms (repeatable; Parquet or JSON Lines, the columns of "
        "--input): compared with the new ones, never with each other, as bryo compare --old",
    )
    p.add_argument(
        "--against",
        metavar="DIR",
        help="a bryo index (bryo index create/add): its submissions are compared with the new "
        "ones like --old ones, their postings read from the index's Parquet segments, as bryo "
        "compare --against DIR does; language, text mode, k and w default to the index's",
    )
    p.add_argument(
        "--add-to",
        metavar="DIR",
        help="after the comparison, add the new documents to the bryo index DIR (created with "
        "the job's options if it does not exist) under --tag, as bryo index add does",
    )
    p.add_argument("--tag", default="", help="the tag of the documents --add-to adds (e.g. the term)")
    p.add_argument(
        "-b",
        "--base",
        action="append",
        default=[],
        metavar="PATH",
        help="base code (repeatable): Parquet or JSON Lines documents with columns id, text, as "
        "bryo compare -b takes files; their passages are never matched nor counted",
    )
    p.add_argument("-l", "--language", help="language of every document (as bryo compare -l); default: detected from the id as a file name")
    p.add_argument("--kind", choices=["code", "text", "html"], help="kind of front-end for the default k and w when -l is not given")
    p.add_argument("--text-mode", choices=["chars", "words"], help="symbols of prose and HTML (default chars)")
    p.add_argument(
        "--parser",
        choices=["lexer", "tree-sitter"],
        help="front-end for source code, as bryo compare --parser (default: the lexers; "
        "tree-sitter with --normalize; the lexer normalizes nothing)",
    )
    p.add_argument(
        "--normalization",
        choices=["full", "keep-strings", "verbatim"],
        help="what of identifiers and literals survives, as bryo compare --normalization "
        "(default keep-strings)",
    )
    p.add_argument(
        "--normalize",
        action="store_const",
        const=True,
        help="token-sequence normalization on syntax trees for every language (statements with "
        "no effect left out, equivalent forms written one way, functions called once inlined), "
        "as bryo compare --normalize; by default, as bryo compare, Java, C and C++ only",
    )
    p.add_argument(
        "--no-normalize",
        dest="normalize",
        action="store_const",
        const=False,
        help="no token normalization (as bryo compare --no-normalize)",
    )
    p.add_argument("-k", type=int, help="noise threshold (default: the front-end's)")
    p.add_argument("-w", type=int, help="winnowing window (default: the front-end's)")
    p.add_argument(
        "-m",
        "--max-submissions",
        type=int,
        help="hashes in more than M documents are ignored (MOSS -m); default: the rarity rule of "
        "bryo compare (template code in more than half of the documents excluded, a seeding budget)",
    )
    p.add_argument(
        "--no-discount",
        dest="discount",
        action="store_false",
        help="under the rarity rule, count short matches of widespread code in full in the "
        "similarity (as bryo compare --no-discount); by default a match shorter than four "
        "k-grams counts by how rare its fingerprints are",
    )
    p.add_argument("-n", "--pairs", dest="max_pairs", type=int, default=250, help="pairs reported; 0 = all (default 250)")
    p.add_argument("--min-similarity", type=float, default=0.0, help="pairs below this similarity (0..1) are not reported")
    p.add_argument(
        "--max-file-size",
        type=int,
        default=4 * 1024 * 1024,
        help="documents larger than this many bytes are skipped and listed, as by bryo compare (default 4 MiB)",
    )
    p.add_argument("--partitions", type=int, help="partitions of documents and postings (default: 2 × the cluster's cores)")
    p.add_argument("--master", help="Spark master when not run by spark-submit (default local[*])")
    p.add_argument(
        "--conf",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a Spark setting for a session this command starts (repeatable), e.g. spark.driver.memory=4g",
    )
    return p


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if (
        args.language is None
        and args.kind is None
        and (args.k is None or args.w is None)
        and args.against is None
    ):
        parser().error("give -l LANG or --kind (code, text, html), or both -k and -w")
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    # Local workers must run this interpreter, the one with the package.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder.appName("bryo")
    if args.master or not SparkConf().contains("spark.master"):
        builder = builder.master(args.master or "local[*]")
    # One thread per task: Spark runs one task per core.
    builder = builder.config("spark.executorEnv.RAYON_NUM_THREADS", "1")
    for setting in args.conf:
        key, sep, value = setting.partition("=")
        if not sep or not key:
            parser().error(f"--conf takes KEY=VALUE, not {setting!r}")
        builder = builder.config(key, value)
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    spark = builder.getOrCreate()
    try:
        record = run(spark, args)
    except InputError as e:
        print(f"bryo.spark: error: {e}", file=sys.stderr)
        return 2
    finally:
        spark.stop()
    c = record["counts"]
    print(
        f"{c['documents']} documents ({c['skipped']} skipped), {c['postings']} postings, "
        f"{c['candidate_pairs']} candidate pairs, {c['pairs']} pairs -> {args.output}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
