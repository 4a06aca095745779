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
  weighs a match (``stats.discount_below`` of the CLI's JSON);
* :func:`index_settings`, :func:`index_documents`, :func:`index_segments`
  — read an index of ``bryo index`` (its options, its archived documents
  with their text and ``doc`` ids, its Parquet segments of postings);
* :func:`index_create`, :func:`index_prepare`, :func:`index_commit` —
  write one: create it, prepare documents on workers (analysis,
  fingerprints, compression; nothing written), then commit them on the
  driver as one new segment in one transaction. ``bryo compare --against
  DIR`` reads an index written this way as one made by ``bryo index
  add``, and gives the same report when the same files are added under
  the same names (see :func:`index_commit`).

``python -m bryo.spark`` runs the whole job on Apache Spark.
"""

from __future__ import annotations

import os

import pyarrow as pa

from . import _bryo

__all__ = [
    "fingerprint",
    "compare",
    "thresholds",
    "front_end",
    "schemes",
    "seed_order",
    "discount_below",
    "index_settings",
    "index_documents",
    "index_segments",
    "index_create",
    "index_prepare",
    "index_commit",
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


_FRONT_END = """The front-end options are the CLI's: ``language`` (``-l``),
    ``text_mode`` (``chars``, ``words``), ``parser`` (``lexer``, the default,
    or ``tree-sitter``), ``normalization`` (``full``, ``keep-strings``, the
    default, or ``verbatim``: what of identifiers and literals survives) and
    ``normalize`` (token-sequence normalization on syntax trees): ``"auto"``,
    the default as in ``bryo compare``, normalizes Java, C and C++ files;
    ``True`` (``--normalize``) every language with a syntax tree, and
    implies ``parser="tree-sitter"``; ``False`` (``--no-normalize``, or
    ``parser="lexer"``) none."""


def _normalize(value):
    """``normalize=`` checked: ``True``, ``False`` or ``"auto"``."""
    if value is True or value is False or value == "auto":
        return value
    raise ValueError(f'normalize must be True, False or "auto", not {value!r}')


def _options(
    *, language, kind, text_mode, k, w, max_file_size, parser=None, normalization=None, normalize="auto"
) -> dict:
    """The keyword arguments that :func:`fingerprint` and :func:`compare`
    share, checked once: the front-end, ``k`` and ``w``, and the size limit
    (left to the Rust default, the CLI's, when not given)."""
    for name, value in (("k", k), ("w", w), ("max_file_size", max_file_size)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
    options = {
        "language": language,
        "kind": kind,
        "text_mode": text_mode,
        "k": k,
        "w": w,
        "parser": parser,
        "normalization": normalization,
        "normalize": _normalize(normalize),
    }
    if max_file_size is not None:
        options["max_file_size"] = max_file_size
    return options


def fingerprint(
    documents,
    *,
    language=None,
    kind=None,
    text_mode=None,
    k=None,
    w=None,
    max_file_size=None,
    parser=None,
    normalization=None,
    normalize="auto",
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
            language=language, kind=kind, text_mode=text_mode, k=k, w=w, max_file_size=max_file_size,
            parser=parser, normalization=normalization, normalize=normalize,
        ),
    )


fingerprint.__doc__ += "\n    " + _FRONT_END + "\n"


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
    parser=None,
    normalization=None,
    normalize="auto",
):
    """Compares documents as ``bryo compare`` does: returns ``(pairs, skipped)``.

    Each document is one submission, or, with a ``submission`` column (a
    name per document), the documents of one name form one submission of
    several files, as ``bryo compare -d`` groups the files of a directory;
    an ``old`` column (boolean) marks documents of earlier terms, compared
    with the new ones but not with each other (``bryo compare --old``).
    Without ``pairs``: one run over the batch, ranked and cut to
    ``max_pairs`` (0 = all). With ``pairs`` (a batch with ``doc_a``,
    ``doc_b``, the names of two submissions, not both old): each pair
    compared alone, every pair scored; ``excluded_hashes`` (uint64) are the hashes excluded on the
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

    A pair's ``doc_a`` and ``doc_b`` are in the order of the whole run (new
    submissions before old ones, each in name order), and each fragment
    names its files (``file_a``, ``file_b``): the documents the passage is
    in, as the CLI's JSON does.

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
            language=language, kind=kind, text_mode=text_mode, k=k, w=w, max_file_size=max_file_size,
            parser=parser, normalization=normalization, normalize=normalize,
        ),
    )


compare.__doc__ += "\n    " + _FRONT_END + "\n"


def thresholds(*, language=None, kind=None, text_mode=None, k=None, w=None):
    """``(k, w)`` as ``bryo compare`` takes them for one kind of front-end."""
    return _bryo.thresholds(language=language, kind=kind, text_mode=text_mode, k=k, w=w)


def front_end(*, language=None, parser=None, normalization=None, normalize="auto") -> dict:
    """The front-end options as ``bryo compare`` decides them and an index
    made with them records them: ``parser``, ``normalization`` and
    ``normalize`` (``True`` or ``False``; ``"auto"`` when no language
    decides it)."""
    return _bryo.front_end(
        language=language, parser=parser, normalization=normalization, normalize=_normalize(normalize)
    )


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


# The fingerprint index of ``bryo index`` (a directory: ``catalog.sqlite``
# and ``segments/*.parquet``), read and written from Python.


def _dir(dir) -> str:
    return os.fspath(dir)


def index_settings(dir) -> dict:
    """The options the index in ``dir`` was made with: ``language`` (None:
    detected per file), ``text_mode`` (``chars`` or ``words``), ``k``,
    ``w``, ``normalize`` (token normalization: ``True``, ``False``, or
    ``"auto"`` for Java, C and C++ alone), ``parser``,
    ``normalization``, ``format_version``, ``hash_scheme_version``,
    ``symbol_scheme_version`` and ``key`` (all of them in one string, as
    :func:`index_prepare` stamps its rows). An index of another format or
    scheme version, or no index, raises ``ValueError``."""
    return _bryo.index_settings(_dir(dir))


def index_documents(dir) -> pa.RecordBatch:
    """The live archived documents of the index, in catalogue order: ``doc``
    (uint32: the ``doc`` column of the segments' postings), ``path`` (the
    display path as added), ``submission`` (its name as added), ``tag``,
    ``symbols`` (uint64), ``content_fingerprint`` (uint64: the Rabin
    fingerprint of the normalized symbols, as :func:`fingerprint`'s
    documents have it) and ``text`` (binary: the source bytes as read,
    checked against their stored fingerprint; damage raises
    ``ValueError``). Removed documents are left out."""
    return _bryo.index_documents(_dir(dir))


def index_segments(dir) -> list:
    """Absolute paths of the index's segment files (Parquet: ``hash``
    uint64, ``doc`` uint32, ``pos`` uint32, sorted by hash), each checked
    against the size and checksum in the catalogue (``ValueError`` if
    one differs). They keep the postings of removed documents until
    ``bryo index compact``: join their ``doc`` with
    :func:`index_documents`."""
    return _bryo.index_segments(_dir(dir))


def index_create(
    dir,
    *,
    language=None,
    kind=None,
    text_mode=None,
    k=None,
    w=None,
    parser=None,
    normalization=None,
    normalize="auto",
) -> None:
    """Creates an empty index in ``dir``, as ``bryo index create DIR -l
    LANGUAGE [-k K] [-w W]``: ``k`` and ``w`` default to the language's
    front-end (or, without a language, to ``kind``'s — ``code``, ``text``,
    ``html`` — else to source code's). A directory that already holds an
    index raises ``ValueError``."""
    for name, value in (("k", k), ("w", w)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} must be a non-negative integer, not {value!r}")
    _bryo.index_create(
        _dir(dir), language=language, kind=kind, text_mode=text_mode, k=k, w=w, parser=parser,
        normalization=normalization, normalize=_normalize(normalize),
    )


index_create.__doc__ += "\n    " + _FRONT_END + "\n"


def index_prepare(documents, *, dir, max_file_size=None) -> pa.RecordBatch:
    """Prepares documents for :func:`index_commit` (the worker side of a
    cluster job): analyzes and fingerprints each one exactly as ``bryo
    index add`` does, under the settings of the index in ``dir`` (read
    only; nothing is written).

    ``documents`` has ``doc_id`` (the file's display path), ``text``
    (string or binary) or ``bytes``, and optionally ``submission`` (its
    submission's name; absent or null: the document is a submission of
    its own, named by its ``doc_id``). A ``language`` column must agree
    with the index's. Documents over ``max_file_size`` bytes (default
    4 MiB, as the CLI) or that a front-end cannot take are kept with
    ``ok`` false and the CLI's ``reason``.

    Returns one row per document: ``doc_id``, ``submission``, ``ok``,
    ``reason``, and what the index stores — ``settings`` (the index's
    settings key), ``language``, ``frontend``, ``fallback``, ``notes``,
    ``symbols``, ``source_bytes``, ``lines``, ``encoding``,
    ``raw_fingerprint``, ``normalized_fingerprint`` (uint64), ``stream``,
    ``source``
    (compressed, binary), ``hashes`` (list of uint64) and ``positions``
    (list of uint32): the document's postings. The uint64 columns may be
    cast to int64 with the same bits (``cast(..., safe=False)``, e.g. for
    Spark, which has no unsigned types): :func:`index_commit` takes both.
    """
    options = {}
    if max_file_size is not None:
        if isinstance(max_file_size, bool) or not isinstance(max_file_size, int) or max_file_size < 0:
            raise ValueError(f"max_file_size must be a non-negative integer, not {max_file_size!r}")
        options["max_file_size"] = max_file_size
    return _bryo.index_prepare(_batch(documents), dir=_dir(dir), **options)


def _prepared_batches(prepared):
    """Record batches, one at a time, from a batch, a table, or an
    iterable of either."""
    if isinstance(prepared, (pa.RecordBatch, pa.Table)):
        prepared = [prepared]
    for item in prepared:
        if isinstance(item, pa.Table):
            yield from item.to_batches()
        elif isinstance(item, pa.RecordBatch):
            yield item
        else:
            raise TypeError(f"expected pyarrow RecordBatches or Tables, not {type(item).__name__}")


def index_commit(dir, prepared, *, tag="") -> dict:
    """Stores documents prepared by :func:`index_prepare` in the index in
    ``dir`` under ``tag`` (the driver side of a cluster job), as ``bryo
    index add --tag TAG`` would: one new segment and the catalogue rows in
    one transaction, so that an error or an interruption (a failing
    generator too) leaves the index as it was.

    ``prepared`` is a batch or table, or an iterable of them (from any
    number of workers, in any order; a generator is read one batch at a
    time). Rows with the same ``submission`` form one submission; the
    index stores submissions in name order and their files in path order.
    ``bryo index add --tag T DIR`` makes every file a submission named by
    its display path (``doc_id = submission = "DIR/sub/a.py"``, the path
    as given on the command line joined with the file's path below it);
    with ``-d``, every directory directly under ``DIR`` is a submission
    (``submission = "DIR/alice"``). Rows prepared under other settings than
    the index's, or a ``doc_id`` given twice, are refused (``ValueError``).

    Returns ``{"submissions", "documents", "symbols", "postings",
    "segment_bytes", "skipped"}``, ``skipped`` listing ``(doc_id,
    reason)`` of the documents not stored, sorted.
    """
    return _bryo.index_commit(_dir(dir), _prepared_batches(prepared), tag=tag)
