"""bryo: copied passages between documents (winnowing), over Apache Arrow.

The functions take and return ``pyarrow.RecordBatch`` objects (a
``pyarrow.Table`` is accepted too) and run bryo's Rust stages — the same
front-ends, normalization, ``k`` and ``w`` as ``bryo compare`` — without a
Python object per document:

* :func:`fingerprint` — documents to postings (hash, doc_id, position,
  byte span) and a per-document status (with the reason of a document
  that could not be compared);
* :func:`compare` — documents to pairs with scores and fragments (byte
  offsets and lines on both sides), either one compare run over the batch
  or, given ``pairs``, each pair alone with the corpus-wide excluded
  hashes (the fragment stage of a distributed job);
* :func:`thresholds` — ``(k, w)`` as ``bryo compare`` chooses them;
* :func:`seed_order` — the order of the rarity rule's sampled pairs;
* :func:`discount_below` — the length under which the rarity discount
  weighs a match (``stats.discount_below`` of the CLI's JSON).

``python -m bryo.spark`` runs the whole job on Apache Spark.
"""

from __future__ import annotations

import pyarrow as pa

from . import _bryo

__all__ = [
    "fingerprint",
    "compare",
    "thresholds",
    "schemes",
    "seed_order",
    "discount_below",
    "__version__",
]

__version__ = _bryo.__version__


def _batch(data) -> pa.RecordBatch:
    """One record batch from a batch or a table (chunks combined)."""
    if isinstance(data, pa.RecordBatch):
        return data
    if isinstance(data, pa.Table):
        return data.combine_chunks().to_batches(max_chunksize=None)[0] if data.num_rows else pa.RecordBatch.from_pylist([], schema=data.schema)
    raise TypeError(f"expected a pyarrow RecordBatch or Table, not {type(data).__name__}")


def _options(*, language, kind, text_mode, k, w, max_file_size) -> dict:
    """The keyword arguments that :func:`fingerprint` and :func:`compare`
    share, checked once: the front-end, ``k`` and ``w``, and the size limit
    (left to the Rust default, the CLI's, when not given)."""
    for name, value in (("k", k), ("w", w), ("max_file_size", max_file_size)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
    options = {"language": language, "kind": kind, "text_mode": text_mode, "k": k, "w": w}
    if max_file_size is not None:
        options["max_file_size"] = max_file_size
    return options


def fingerprint(
    documents, *, language=None, kind=None, text_mode=None, k=None, w=None, max_file_size=None
):
    """Fingerprints documents: returns ``(postings, documents)``.

    ``documents`` has ``doc_id`` (string), ``text`` (string) or ``bytes``
    (binary), and optionally ``language``. ``k`` and ``w`` default to the
    front-end's (give ``language`` or ``kind`` — ``code``, ``text``,
    ``html`` — or both). Documents over ``max_file_size`` bytes (default
    4 MiB, as the CLI) are skipped with the CLI's reason.
    """
    return _bryo.fingerprint(
        _batch(documents),
        **_options(
            language=language, kind=kind, text_mode=text_mode, k=k, w=w, max_file_size=max_file_size
        ),
    )


def compare(
    documents,
    *,
    pairs=None,
    excluded_hashes=None,
    base=None,
    language=None,
    kind=None,
    text_mode=None,
    k=None,
    w=None,
    max_submissions=None,
    max_pairs=250,
    min_similarity=0.0,
    max_file_size=None,
    discount=True,
    hash_submissions=None,
    template_above=None,
):
    """Compares documents as ``bryo compare`` does: returns ``(pairs, skipped)``.

    Each document is one submission. Without ``pairs``: one run over the
    batch, ranked and cut to ``max_pairs`` (0 = all). With ``pairs`` (a
    batch with ``doc_a``, ``doc_b``): each pair compared alone, every pair
    scored; ``excluded_hashes`` (uint64) are the hashes excluded on the
    whole corpus: with ``max_submissions=0`` they are MOSS ``-m`` passages
    (never matched, counted in the totals), with ``max_submissions=None``
    template code of the rarity rule (never matched nor counted).
    ``base`` (documents, as ``documents``) is base code, as ``bryo compare
    -b`` takes it: never matched, and left out of the totals.

    ``discount`` (default ``True``) is the rarity discount of the default
    rule (no ``max_submissions``): a match shorter than four k-grams counts
    in ``similarity`` by how rare its fingerprints are; ``False`` is
    ``bryo compare --no-discount``. A pair compared alone is too small a
    corpus for the discount: give ``hash_submissions`` (a batch or table
    with ``hash``, uint64, and ``submissions``, the number of distinct
    documents holding each matched hash of the whole corpus, identical ones
    counted once) and ``template_above`` (the whole corpus's template
    threshold) to discount it as ``bryo compare`` does on the whole corpus.

    The ``pairs`` batch may have a ``seeds`` column (a list of uint64
    hashes, or of int64 read bit for bit, as Spark stores them): the
    hashes that seed the pair's fragments, its pair records' hashes on the
    whole corpus. Under the rarity rule a hash above the seed limit pairs
    only a sample of its documents, while a pair compared alone is seeded
    by every hash the two share; with its seeds, the pair gets the whole
    run's fragments and ``shared_fingerprints``. Other shared hashes stay
    matchable by extension. A null (or no column) seeds by every shared
    hash; an empty list seeds nothing, so the pair is not reported unless
    its documents are identical (then whole). The column is passed on as it
    is.
    """
    if excluded_hashes is not None:
        excluded_hashes = _uint(excluded_hashes, pa.uint64())
    if hash_submissions is not None:
        counts = _batch(hash_submissions)
        hash_submissions = pa.RecordBatch.from_arrays(
            [
                _uint(counts.column("hash"), pa.uint64()),
                counts.column("submissions").cast(pa.uint32()),
            ],
            names=["hash", "submissions"],
        )
    return _bryo.compare(
        _batch(documents),
        pairs=None if pairs is None else _batch(pairs),
        excluded_hashes=excluded_hashes,
        base=None if base is None else _batch(base),
        max_submissions=max_submissions,
        max_pairs=max_pairs,
        min_similarity=min_similarity,
        discount=bool(discount),
        hash_submissions=hash_submissions,
        template_above=template_above,
        **_options(
            language=language, kind=kind, text_mode=text_mode, k=k, w=w, max_file_size=max_file_size
        ),
    )


def thresholds(*, language=None, kind=None, text_mode=None, k=None, w=None):
    """``(k, w)`` as ``bryo compare`` takes them for one kind of front-end."""
    return _bryo.thresholds(language=language, kind=kind, text_mode=text_mode, k=k, w=w)


def seed_order(hashes, submissions):
    """The order in which ``bryo compare``'s rarity rule pairs the
    documents of a hash above its seed limit: a uint64 key per
    ``(hash, submission)`` (uint64 hashes, uint32 submission numbers in
    name order); sorted within a hash, each submission is paired with the
    next ``⌈limit/2⌉``."""
    return _bryo.seed_order(_uint(hashes, pa.uint64()), _uint(submissions, pa.uint32()))


def discount_below(*, k, template_above, discount=True) -> int:
    """Symbols below which ``bryo compare``'s rarity discount weighs a
    match, on a corpus with noise threshold ``k`` whose template threshold
    is ``template_above`` (0: the discount does not apply — classes too
    small for a template threshold above 10, or ``discount=False``). The
    CLI's JSON reports it as ``stats.discount_below`` when some shared hash
    is matched."""
    return _bryo.discount_below(k=k, template_above=template_above, discount=bool(discount))


def _uint(values, type_) -> pa.Array:
    """An Arrow array of `values` (a list or an array, chunks combined)."""
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if not isinstance(values, pa.Array):
        values = pa.array(values, type=type_)
    return values


def schemes():
    """``(hash scheme version, symbol scheme version)`` of these postings."""
    return _bryo.schemes()
