"""What the ``dprank`` command adds around a release: declared items, provenance, channels.

Private to :mod:`dprank.cli`:

* the item universe of ``--items FILE`` / ``--items-from-data``
  (:mod:`dprank.data.items`), required under individual and local DP;
* the provenance of a local release: ``dprank privatize`` writes a public
  release record beside its output (:func:`privatize_record`), and ``dprank
  rank --privacy local`` ranks only a file that such a record names (beside it,
  or ``--input-record``), or one the data owner says was randomised elsewhere
  (``--randomised-elsewhere``) (:func:`local_source`);
* the channels of a private release: warnings derived from the private data go
  to the audit record only, and standard error carries only what depends on
  public parameters (:func:`route_warnings`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..base.io import sha256 as file_sha256
from ._output import UsageError

#: The ``release`` field of a ``dprank privatize`` record.
PRIVATIZE_RECORD = "dprank privatize"

#: The unit of a local release, as its records state it.
LOCAL_UNIT = (
    "comparison: each comparison's outcome is eps-LDP at its user's epsilon; which pairs "
    "each user compared is public (Paper B's model). A user with at most L comparisons "
    "(--max-per-user of dprank privatize) is protected at L * epsilon"
)


# --------------------------------------------------------------------------- items


def add_items_options(p) -> None:
    """``--items FILE`` and ``--items-from-data`` on a release's parser."""
    p.add_argument(
        "--items",
        metavar="FILE",
        help="the declared, public items: a CSV with an 'item' column (a ranking.csv is one). "
        "Every declared item is ranked, compared or not; comparisons naming another item are "
        "dropped. Required (or --items-from-data) for --privacy individual and local and for "
        "privatize",
    )
    p.add_argument(
        "--items-from-data",
        action="store_true",
        help="declare the input's own item set public instead of --items (the record says "
        "so): only where the items are public anyway, since under individual DP an item only "
        "one user compared would appear because of that user",
    )


def declared_items(args, privacy: str, from_record=None):
    """The universe for :func:`dprank.rank`'s ``items=``: an ItemUniverse, or None.

    ``args.items_from_data`` is passed on as ``items_from_data``. Under
    individual and local DP one of the two is required (a local release's own
    record may declare the items: ``from_record``).
    """
    from ..data.items import read_items, universe_of

    if args.items is not None and args.items_from_data:
        raise UsageError("give --items FILE or --items-from-data, not both")
    if args.items is not None:
        return read_items(args.items)
    if args.items_from_data:
        return None
    if from_record is not None:
        return universe_of(from_record[0], from_record[1])
    if privacy in ("individual", "local", "privatize"):
        what = "dprank privatize" if privacy == "privatize" else f"--privacy {privacy}"
        raise UsageError(
            f"{what} needs the items declared: --items FILE (a CSV with an 'item' column, "
            "e.g. a previous ranking.csv; every declared item is ranked and comparisons "
            "naming other items are dropped), or --items-from-data to declare the input's own "
            f"items public. Under {'local' if privacy == 'privatize' else privacy} DP the "
            "items in the data are not public: an item that only one user compared would "
            "appear in the output because of that user"
        )
    return None


# --------------------------------------------------------------------------- local provenance


def add_local_source_options(p) -> None:
    """``--input-record`` and ``--randomised-elsewhere`` on ``rank``'s parser."""
    p.add_argument(
        "--input-record",
        metavar="FILE",
        help="--privacy local: the release record that dprank privatize wrote for the input "
        "(default: the input file with .json, beside it)",
    )
    p.add_argument(
        "--randomised-elsewhere",
        metavar="TEXT",
        help="--privacy local: the input was randomised by its users outside dprank; TEXT says "
        "how and where (it goes into the public record as the source of the guarantee)",
    )


def local_source(args) -> tuple[dict | None, tuple | None]:
    """``(local_source, items)`` of ``rank --privacy local``: where the guarantee comes from.

    Refuses (a :class:`UsageError` naming ``dprank privatize``) an input that
    no ``dprank privatize`` record names and that is not declared randomised
    elsewhere; checks the record against the file's bytes. ``items`` is the
    record's declared items ``(labels, source)`` (None without a record).
    """
    if args.privacy != "local":
        for option in ("input_record", "randomised_elsewhere"):
            if getattr(args, option) is not None:
                flag = "--" + option.replace("_", "-")
                raise UsageError(f"{flag} applies only to --privacy local")
        return None, None
    if args.randomised_elsewhere is not None:
        if args.input_record is not None:
            raise UsageError("give --input-record or --randomised-elsewhere, not both")
        text = args.randomised_elsewhere.strip()
        if not text:
            raise UsageError("--randomised-elsewhere needs a description of where and how")
        source = f"declared by the data owner: randomised by the users elsewhere ({text})"
        return {"source": source, "private": True}, None
    stream = args.comparisons == "-" or (
        os.path.exists(args.comparisons)
        and not os.path.isfile(args.comparisons)
        and not os.path.isdir(args.comparisons)
    )
    if stream and args.input_record is None:
        raise UsageError(
            f"--privacy local on a stream ({args.comparisons}) needs --input-record FILE: the "
            "release record that dprank privatize wrote beside the released file (its sha256 "
            "is checked on the bytes as they are read)"
        )
    if not stream and not os.path.isfile(args.comparisons):
        from ..data.inputs import read_comparisons

        read_comparisons(args.comparisons)  # the reader's message: no such file, a folder
    path = args.input_record or os.fspath(Path(args.comparisons).with_suffix(".json"))
    fix = (
        "--privacy local ranks comparisons that each user already randomised: randomise raw "
        "comparisons first with `dprank privatize FILE --epsilon EPS --items ITEMS --out "
        "released.csv` and rank released.csv (its record released.json beside it); if the "
        "users randomised their comparisons elsewhere, say so with --randomised-elsewhere TEXT"
    )
    if not os.path.exists(path):
        named = "named by --input-record" if args.input_record else "beside it"
        raise UsageError(
            f"{args.comparisons} was not written by dprank privatize: no release record "
            f"{path} {named}. {fix}"
        )
    try:
        record = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise UsageError(f"the release record {path} cannot be read ({exc}). {fix}") from None
    if not isinstance(record, dict) or record.get("release") != PRIVATIZE_RECORD:
        raise UsageError(f"{path} is not a dprank privatize record. {fix}")
    if stream:  # checked on the bytes as the reader hashes them (check_stream_record)
        if not isinstance(record.get("sha256"), str):  # as a file's check refuses it
            raise UsageError(
                f"the release record {path} holds no sha256 of the released file, so the "
                f"stream {args.comparisons} cannot be checked against it. {fix}"
            )
        args.expected_sha256 = record["sha256"]
    elif record.get("sha256") != file_sha256(args.comparisons):
        raise UsageError(
            f"{args.comparisons} is not the file that the release record {path} describes (its "
            "sha256 differs: the file was edited, converted or replaced). Rank the file as "
            "dprank privatize wrote it"
        )
    _check_local_mechanism(args, record.get("mechanism"))
    source = f"dprank privatize, release record {Path(path).name} (the input's sha256 matches)"
    items = record.get("items")
    declared = None
    if isinstance(items, list) and items:
        declared = (items, f"the release record {Path(path).name}: {record.get('items_source')}")
    return {"source": source, "private": bool(record.get("private"))}, declared


#: The releases that each kind of local method estimates (``privatize``'s record says which
#: it made): the Laplace release, randomized response, and three-outcome randomized response
#: of votes with ties, which only the ties methods read (they also read a two-outcome one).
_LOCAL_RELEASES = {"laplace": ("laplace",), "ties": ("rr", "rr3"), "rr": ("rr",)}


def _check_local_mechanism(args, released) -> None:
    """The method of ``rank --privacy local`` against the release that its record names."""
    method = args.method
    if method in ("laplace", "local_laplace"):
        kind = "laplace"
    elif method in ("ties", "local_ties") or (
        method is None and args.model in ("davidson", "raokupper")
    ):
        kind = "ties"
    else:
        kind = "rr"
    if released in _LOCAL_RELEASES[kind]:
        return
    hint = {
        "laplace": " (use --method laplace)",
        "rr3": " (votes with ties: use --model davidson)",
    }.get(released, "")
    raise UsageError(
        f"{args.comparisons} is a '{released}' release, which --method "
        f"{method or ('ties' if kind == 'ties' else 'adrr')} does not estimate{hint}"
    )


def check_stream_record(args, table) -> None:
    """A streamed local release against its record's sha256 (:func:`local_source`), once read."""
    expected = getattr(args, "expected_sha256", None)
    if expected is not None and table.sha256 != expected:
        raise UsageError(
            f"the input ({args.comparisons}) is not the file that the release record "
            f"{args.input_record} describes (its sha256 differs: the file was edited, converted "
            "or replaced). Rank the file as dprank privatize wrote it"
        )


def privatize_record(
    args, *, mechanism: str, private: bool, epsilon, items, items_source: str
) -> dict:
    """The public record of a ``dprank privatize`` release (its ``sha256`` set when written).

    ``mechanism``: ``"rr"``, ``"laplace"`` or ``"rr3"`` (three-outcome randomized response of
    votes with ties).
    """
    from .._version import __version__

    L = args.max_per_user
    per_user = "its user's epsilon (--user-epsilon-column)" if args.epsilon is None else None
    return {
        "dprank_version": __version__,
        "release": PRIVATIZE_RECORD,
        "mechanism": mechanism,
        "outcomes": 3 if mechanism == "rr3" else 2,
        "trust_model": "local",
        "privacy_unit": "comparison",
        "privacy_unit_note": LOCAL_UNIT,
        "private": private,
        "epsilon": epsilon,
        "epsilon_per_comparison": per_user or "the same for every user (--epsilon)",
        "max_per_user": L,
        "epsilon_user_level": None if L is None else L * epsilon,
        "items": list(items),
        "items_source": items_source,
        "file": None if args.out == "-" else Path(args.out).name,
        "sha256": None,
    }


def hashing_writer(writer, sink: dict):
    """``writer`` that also puts the sha256 of what it wrote into ``sink["sha256"]``."""

    def write(target) -> None:
        writer(target)
        if isinstance(target, Path):
            sink["sha256"] = file_sha256(target)
        else:  # standard output, written through a buffer
            import hashlib

            sink["sha256"] = hashlib.sha256(target.getvalue().encode("utf-8")).hexdigest()

    return write


def record_writer(record: dict, sink: dict):
    """A JSON writer of ``record`` with the sha256 that :func:`hashing_writer` found."""
    from ._output import json_writer, plain

    def write(target) -> None:
        json_writer(plain({**record, "sha256": sink.get("sha256")}))(target)

    return write


# --------------------------------------------------------------------------- channels


def route_warnings(caught, privacy: str) -> tuple[list[str], list[str]]:
    """``(public, private)`` messages of the warnings a release raised.

    Without privacy every warning is public. For a private release only the
    warnings that depend on public facts alone go to standard error
    (:class:`dprank.api.PublicParameterWarning`, and
    :class:`dprank.api.DisconnectedWarning`, which :func:`dprank.rank` raises
    only where the comparison graph is public); every other warning (a
    solver's, numpy's) may depend on the data and goes to the audit record.
    """
    from ..api import DisconnectedWarning, PublicParameterWarning

    public, private = [], []
    for w in caught:
        text = str(w.message)
        if privacy == "none" or issubclass(
            w.category, (PublicParameterWarning, DisconnectedWarning)
        ):
            public.append(text)
        else:
            private.append(f"{w.category.__name__}: {text}")
    return public, private
