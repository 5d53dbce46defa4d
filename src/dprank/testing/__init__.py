"""The contract every ranking method keeps: one suite, run on every registered method.

In the manner of scikit-learn's ``check_estimator``: a method author runs
:func:`check_method` on their method (a registered name or a
:class:`dprank.methods.Method`), and the project's tests run it on every method
of the registry (``tests/test_method_contract.py``). Each check fits the method on
tiny data (four items; users where the method needs them; votes with ties for the
ties methods) and fails with a message that names the method, the check and what
to change. The checks (:func:`method_checks` lists them):

``declaration``
    The name begins with its privacy level's prefix (``edge_``, ``individual_``,
    ``local_``, ``nonprivate_``) and the prefix agrees with ``privacy_unit`` and
    ``trust_model``; the label and description are set; the fit's options are
    declared (keyword-only parameters and ``**_``, so that an unknown option is
    refused).
``rank_secure``
    :func:`dprank.rank` with the operating system's secure generator (``rng=None``,
    the default): finite scores and ranks ``1..n`` for every item, and the record says
    ``"private": true`` (``false`` for a non-private method).
``rank_seeded``
    :func:`dprank.rank` with a seeded :class:`numpy.random.Generator` and with an int
    seed: the same seed gives the same release, bit for bit, and the record says
    ``"private": false``.
``record``
    The public record's fields are there and well typed (:data:`RECORD_FIELDS`), the
    mechanism and privacy level are the method's, the noise details are public ones
    (:data:`dprank.methods.PUBLIC_DETAILS`), the record is JSON.
``command``
    ``dprank rank`` (in-process, on a CSV file written here; local methods on the
    output of ``dprank privatize``): exit status 0, ``ranking.csv`` with every item and
    the JSON record beside it; with ``--insecure-seed`` twice the same bytes and
    ``"private": false``, without it ``"private": true``.
``benchmark``
    :meth:`dprank.methods.Method.run` with a seeded numpy Generator, the call the
    benchmark of methods and the papers' simulations make (raw comparisons; a local
    method's users' release is simulated first): finite scores, the same for the same
    seed, ``Fit.private`` false.
``intervals``
    :meth:`dprank.Ranking.intervals` where :func:`dprank.intervals.supports` says the
    method has them (bounds ordered, ranks within ``1..n``); elsewhere a ValueError that
    names the method.
``bad_input``
    A bad budget (0, negative, NaN, infinite, a string; any budget for a local or
    non-private method), comparisons without users for a method that needs them, votes
    with ties for a two-outcome method, a missing ``max_per_user`` under individual DP
    and an unknown option are refused by :func:`dprank.rank` with a message naming the
    problem; a bad budget is refused by the command with exit status 2 and one line.
``privacy``
    The guarantee the method claims (:meth:`Method.privacy_loss` where the method has
    it, else the release's record: its ``epsilon`` and ``delta``) is not below the
    empirical lower bound of the privacy harness (:func:`dprank.audit.harness.play`):
    the DP game on worst-case neighbouring data sets of the method's privacy unit, a few
    hundred seeded runs per side (:data:`AUDIT_TRIALS`). A lower bound above the claim
    is a proven violation (at confidence ``1 - alpha``).

Examples
--------
>>> from dprank.testing import check_method
>>> report = check_method("edge_counts", checks=["declaration", "rank_seeded"])
>>> report
{'declaration': 'ok', 'rank_seeded': 'ok'}
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from ..methods import Method, all_methods, register, unregister
from ._checks import (
    check_bad_input,
    check_benchmark,
    check_command,
    check_declaration,
    check_intervals,
    check_rank_secure,
    check_rank_seeded,
    check_record,
)
from ._privacy import audit_claim, audit_path, check_privacy
from ._setting import (
    AUDIT_TRIALS,
    CHECKS,
    RECORD_FIELDS,
    Check,
    ContractError,
    as_method,
    checked_epsilon,
    tiny_comparisons,
)

__all__ = [
    "AUDIT_TRIALS",
    "CHECKS",
    "RECORD_FIELDS",
    "Check",
    "ContractError",
    "audit_claim",
    "audit_path",
    "check_method",
    "method_checks",
    "tiny_comparisons",
]

_RUNNERS = {
    "declaration": check_declaration,
    "rank_secure": check_rank_secure,
    "rank_seeded": check_rank_seeded,
    "record": check_record,
    "command": check_command,
    "benchmark": check_benchmark,
    "intervals": check_intervals,
    "bad_input": check_bad_input,
    "privacy": check_privacy,
}


# --------------------------------------------------------------------------- the suite


@contextlib.contextmanager
def _registered(method: Method):
    """``method`` in the registry for the duration (the command looks methods up by name)."""
    known = {m.name: m for m in all_methods()}
    if method.name in known:
        if known[method.name] is not method:
            raise ContractError(
                f"method {method.name}: another method of that name is registered; "
                "check the registered one by name, or give yours another name"
            )
        yield
        return
    register(method)
    try:
        yield
    finally:
        unregister(method.name)


def method_checks(
    method: Method | str,
    *,
    checks: Sequence[str] | None = None,
    epsilon: float = 1.0,
) -> list[Check]:
    """The contract's checks of ``method``, each a callable :class:`Check`.

    For a test suite (``pytest.mark.parametrize`` over them); an unregistered
    :class:`Method` is registered while a check runs.

    Parameters
    ----------
    method : str or Method
        A registry name or a method.
    checks : sequence of str, optional
        Names in :data:`CHECKS` (default: all).
    epsilon : float
        The budget the checks release with (positive, finite).

    Raises
    ------
    TypeError, ValueError
        A method that is neither, an unknown check, a bad epsilon (naming them).
    """
    method = as_method(method)
    names = list(CHECKS) if checks is None else _check_names(checks)
    eps = checked_epsilon(epsilon, "epsilon")

    def runner(name):
        def run():
            with _registered(method):
                _RUNNERS[name](method, eps)

        return run

    return [Check(method.name, name, runner(name)) for name in names]


def _check_names(checks) -> list[str]:
    if isinstance(checks, str) or not isinstance(checks, Sequence):
        raise TypeError(f"checks must be a list of names of {list(CHECKS)}, got {checks!r}")
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; the contract's checks are {list(CHECKS)}")
    return list(checks)


def check_method(
    method: Method | str,
    *,
    checks: Sequence[str] | None = None,
    epsilon: float = 1.0,
) -> dict[str, str]:
    """Run the contract on ``method``; raise :class:`ContractError` listing every failure.

    Parameters
    ----------
    method : str or Method
        A registry name, or a :class:`dprank.methods.Method` (registered for the
        duration of the checks if it is not).
    checks : sequence of str, optional
        Names in :data:`CHECKS` (default: all of them).
    epsilon : float
        The budget of the releases (default 1).

    Returns
    -------
    dict
        ``{check: "ok"}`` for each check run.

    Raises
    ------
    ContractError
        An AssertionError whose message has one line per failed check (the method,
        the check, what went wrong and what to change).
    """
    report, failures = {}, []
    for check in method_checks(method, checks=checks, epsilon=epsilon):
        try:
            check()
        except ContractError as exc:
            failures.append(str(exc))
            report[check.name] = "failed"
        else:
            report[check.name] = "ok"
    if failures:
        raise ContractError("\n".join(failures))
    return report
