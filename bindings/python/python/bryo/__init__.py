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
* :func:`thresholds` — ``(k, w)`` as ``bryo compare`` chooses them.

``python -m bryo.spark`` runs the whole job on Apache Spark.
"""

from __future__ import annotations

import pyarrow as pa

from . import _bryo

__all__ = ["fingerprint", "compare", "thresholds", "schemes", "__version__"]

__version__ = _bryo.__version__


def _batch(data) -> pa.RecordBatch:
    """One record batch from a batch or a table (chunks combined)."""
    if isinstance(data, pa.RecordBatch):
        return data
    if isinstance(data, pa.Table):
        return data.combine_chunks().to_batches(max_chunksize=None)[0] if data.num_rows else pa.RecordBatch.from_pylist([], schema=data.schema)
    raise TypeError(f"expected a pyarrow RecordBatch or Table, not {type(data).__name__}")


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
    extra = {} if max_file_size is None else {"max_file_size": max_file_size}
    return _bryo.fingerprint(
        _batch(documents), language=language, kind=kind, text_mode=text_mode, k=k, w=w, **extra
    )


def compare(
    documents,
    *,
    pairs=None,
    excluded_hashes=None,
    language=None,
    kind=None,
    text_mode=None,
    k=None,
    w=None,
    max_submissions=None,
    max_pairs=250,
    min_similarity=0.0,
    max_file_size=None,
):
    """Compares documents as ``bryo compare`` does: returns ``(pairs, skipped)``.

    Each document is one submission. Without ``pairs``: one run over the
    batch, ranked and cut to ``max_pairs`` (0 = all). With ``pairs`` (a
    batch with ``doc_a``, ``doc_b``): each pair compared alone, every pair
    scored; ``excluded_hashes`` (uint64) are the hashes excluded on the
    whole corpus, and ``max_submissions=0`` makes them MOSS ``-m``
    passages.
    """
    if excluded_hashes is not None and not isinstance(excluded_hashes, pa.Array):
        excluded_hashes = pa.array(excluded_hashes, type=pa.uint64())
    if isinstance(excluded_hashes, pa.ChunkedArray):
        excluded_hashes = excluded_hashes.combine_chunks()
    return _bryo.compare(
        _batch(documents),
        pairs=None if pairs is None else _batch(pairs),
        excluded_hashes=excluded_hashes,
        language=language,
        kind=kind,
        text_mode=text_mode,
        k=k,
        w=w,
        max_submissions=max_submissions,
        max_pairs=max_pairs,
        min_similarity=min_similarity,
        **({} if max_file_size is None else {"max_file_size": max_file_size}),
    )


def thresholds(*, language=None, kind=None, text_mode=None, k=None, w=None):
    """``(k, w)`` as ``bryo compare`` takes them for one kind of front-end."""
    return _bryo.thresholds(language=language, kind=kind, text_mode=text_mode, k=k, w=w)


def schemes():
    """``(hash scheme version, symbol scheme version)`` of these postings."""
    return _bryo.schemes()
