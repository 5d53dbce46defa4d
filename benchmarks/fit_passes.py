"""Benchmark: where the sparse fit's time goes, pass by pass, in ``dprank rank``.

Runs the command on a comparison file in this process (``--privacy none
--items-from-data`` unless other options are given after the file) with a timer
(CPU seconds) around each compiled pass of the sparse Newton-CG
(:mod:`dprank.fit.sparse`; the loops of :mod:`dprank.base._compiled`): the
gradient passes (``zero_pass`` at ``theta = 0``, ``btl_pass``: gradient, Hessian
diagonal and pair weights in one pass), the objective passes (``btl_value``, only
where a line search needs a value) and the preconditioned CG (``pcg``: one call a
Newton step, one Hessian-vector product an iteration). It prints each pass in
order, then the counts, the seconds per pair of a gradient pass and of a
Hessian-vector product, and the fit's time against the sum of its passes. The
output file goes to a temporary folder. Run::

    OMP_NUM_THREADS=1 nice python benchmarks/fit_passes.py FILE
    OMP_NUM_THREADS=1 nice python benchmarks/fit_passes.py FILE --privacy none --items-from-data

It stops with a message where the command's options route the fit to another solver
(the dense or pairs Newton of :mod:`dprank.fit.mle`).

Timings depend on the machine and its load; nothing here is asserted in the tests.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from dprank.base import _compiled
from dprank.fit import mle, sparse, weighted_mle

_PASSES = ("zero_pass", "btl_pass", "btl_value", "pcg")


def _timed(log, name, fn):
    def wrapper(*args, **kwargs):
        t0 = time.process_time()
        out = fn(*args, **kwargs)
        seconds = time.process_time() - t0
        detail = {}
        if name == "pcg":  # (ptr, b, h, diag, rhs, c, ones_eig, rtol, ...) -> (x, it, positive)
            detail = {"iterations": out[1], "rtol": args[7], "pairs": int(args[1].size)}
        elif name == "sparse_newton":
            detail = {"n_iter": out["n_iter"], "cg_iter": out["cg_iter"]}
        log.append((name, seconds, detail))
        return out

    return wrapper


def main(argv: list[str]) -> None:
    if not argv or argv[0].startswith("-"):
        sys.exit(__doc__)
    path, options = argv[0], argv[1:] or ["--privacy", "none", "--items-from-data"]
    log: list = []
    for name in _PASSES:
        setattr(_compiled, name, _timed(log, name, getattr(_compiled, name)))
    newton = _timed(log, "sparse_newton", sparse.sparse_newton)
    mle.sparse_newton = weighted_mle.sparse_newton = newton  # the names the estimators call

    from dprank.cli import main as cli

    with tempfile.TemporaryDirectory() as tmp:
        out = str(Path(tmp) / "ranking.csv")
        status = cli(["rank", path, "--out", out, "--quiet", *options])
    if status:
        sys.exit(f"dprank rank exited with status {status}")
    step = 0
    totals = {name: [0, 0.0] for name in _PASSES}
    hvp = 0
    pairs = 0
    fit = None
    for name, seconds, detail in log:
        if name == "sparse_newton":
            fit = (seconds, detail)
            continue
        totals[name][0] += 1
        totals[name][1] += seconds
        if name == "pcg":
            step += 1
            hvp += detail["iterations"]
            pairs = detail["pairs"]
            print(
                f"Newton step {step}: pcg {seconds:.3f} s, {detail['iterations']} CG "
                f"iterations (forcing term {detail['rtol']:.2e})"
            )
        else:
            print(f"  {name} {seconds:.3f} s")
    if fit is None:
        sys.exit("the command ran no sparse Newton-CG fit")
    passes = sum(t[1] for t in totals.values())
    print(
        f"fit {fit[0]:.3f} s: {fit[1]['n_iter']} Newton steps, "
        f"{totals['zero_pass'][0] + totals['btl_pass'][0]} gradient passes, "
        f"{totals['btl_value'][0]} objective passes, {hvp} Hessian-vector products; "
        f"the passes {passes:.3f} s, the rest {fit[0] - passes:.3f} s"
    )
    if pairs:
        grad_n, grad_s = totals["btl_pass"]
        if grad_n:
            print(f"gradient pass {grad_s / grad_n / pairs * 1e9:.2f} ns a pair ({pairs} pairs)")
        if hvp:
            print(f"CG iteration {totals['pcg'][1] / hvp / pairs * 1e9:.2f} ns a pair")


if __name__ == "__main__":
    main(sys.argv[1:])
