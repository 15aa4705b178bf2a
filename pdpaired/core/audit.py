"""Design audit: how well each interval method and test works on the user's own design.

The audit runs a simulation in the *bootstrap world* of the observed data:
the observed units (cases or clusters, within their strata, with the
strata's population weights) are the population, and the observed
improvement is the truth.

* **Intervals.** Simulation ``b`` draws an outer resample of the units
  exactly as the bootstrap does (``G_h`` units with replacement within each
  stratum ``h``; for 0/1 scores on independent cases, the four cells of the
  paired 2 x 2 table from a multinomial, which is the same law). Every
  candidate interval is computed on that outer resample with
  ``n_resamples`` inner replicates, exactly as
  :func:`pdpaired.core.bootstrap.bootstrap_replicates` computes it on real
  data, and the audit records whether it covers the observed improvement
  and its width. The inner replicates are drawn once per outer resample
  and shared by every bootstrap method: the bootstrap-t's joint draw
  (:func:`pdpaired.core.studentized.studentized_replicates`) gives the
  replicates of the statistic bit for bit as the plain bootstrap does, and
  their standard errors beside them.
* **Tests.** The outer resamples are drawn from a world where the null
  holds: each unit's value is centred on its stratum's ratio (``y - r_h c``,
  so every stratum's population mean difference is 0), or, for 0/1 scores,
  each discordant pair of the outer resample is won by A or by B with
  probability 1/2 (sign-symmetrised: the 0/1 structure is kept). The
  randomization test (and for 0/1 scores the exact binomial test) runs on
  each outer resample; its size is the share of outer resamples where it
  rejects at ``1 - confidence_level``.

The coverage estimate of a method is the share ``p`` of the
``n_simulations`` outer resamples whose interval covers the truth, with
Monte Carlo standard error ``sqrt(p (1 - p) / n_simulations)``. It estimates
the coverage the method has when the population is the observed data; it
is a plug-in estimate, so with few cases of a skewed population, whose
empirical distribution is typically less skewed than the population, it
leans towards the nominal level (the audit guide gives the measured size
of that lean).

Streams: simulation ``b`` reads ``audit`` ``(b, 0)`` for its outer resample
and runs its analyses under the root ``audit`` ``(b, 1)``, so every result
is reproducible and a simulation does not depend on the others, on the
methods audited or on batching.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from pdpaired._lib import progress
from pdpaired._lib.rng import stream_sequence
from pdpaired.core.accel import DRAW_SECONDS, FLIP_SECONDS, engine_for, small_calls
from pdpaired.core.auto import is_binary
from pdpaired.core.bootstrap import DesignResampler, bootstrap_replicates
from pdpaired.core.engine import Design, full_sample_statistic, rao_wu
from pdpaired.core.exact_binomial import binomial_test
from pdpaired.core.randomization import randomization_design
from pdpaired.core.studentized import Studentized

#: Below this many NumPy seconds per simulation, the inner analyses run on NumPy on
#: the calling thread (:func:`pdpaired.core.accel.small_calls`): a thread pool or a
#: parallel kernel launched per call would cost more than the draws.
SMALL_SECONDS = 0.01

__all__ = [
    "ANALYSES",
    "AUDIT_METHODS",
    "AUDIT_TESTS",
    "OUTER_DRAW",
    "SMALL_SECONDS",
    "AuditCore",
    "audit_design",
    "audit_methods",
    "audit_tests",
    "binary_cells",
    "recommend",
]

#: Interval methods the audit knows, in the order its table shows them.
AUDIT_METHODS = ("percentile", "basic", "bca", "studentized", "calibrated", "tango", "newcombe")
#: Tests the audit knows: the sign-flip randomization test, the exact binomial (sign) test.
AUDIT_TESTS = ("randomization", "exact_binomial")
#: Last index word of the ``audit`` streams of a simulation: its outer resample's
#: generator, and the root of the analyses run on that resample.
OUTER_DRAW, ANALYSES = 0, 1


@dataclass(frozen=True, slots=True, eq=False)
class AuditCore:
    """What the array-level audit returns: one row of outcomes per method and per test.

    Attributes
    ----------
    methods : tuple of str
        The interval methods audited.
    covered : ndarray of bool, shape (len(methods), n_simulations)
        Whether the method's interval on outer resample ``b`` covers ``truth``.
    width : ndarray of float, shape (len(methods), n_simulations)
        The interval's width on outer resample ``b``.
    tests : tuple of str
        The tests audited.
    rejected : ndarray of bool, shape (len(tests), n_simulations)
        Whether the test rejects at ``alpha`` on null outer resample ``b``.
    truth : float
        The observed improvement, the truth of the simulation.
    engine : str
        The resampling engine of the inner bootstraps.
    """

    methods: tuple[str, ...]
    covered: np.ndarray
    width: np.ndarray
    tests: tuple[str, ...]
    rejected: np.ndarray
    truth: float
    engine: str


def binary_cells(resampler: DesignResampler) -> tuple[int, int, int, int] | None:
    """Return the paired 2 x 2 table ``(a, b, c, d)`` of 0/1 scores on independent cases.

    ``a`` both pass, ``b`` only A, ``c`` only B, ``d`` both fail (in the
    improvement's direction). ``b`` and ``c`` come from the differences;
    ``a`` needs the pairs (``resampler.both_pass``): without it, None. None
    too unless the design is one of 0/1 scores by case in one stratum.
    """
    if resampler.both_pass is None or not _binary(resampler):
        return None
    d = resampler.design
    f = d.row_weights()
    b = int(f[d.sign * d.value > 0].sum())
    c = int(f[d.sign * d.value < 0].sum())
    n = int(f.sum())
    a = int(resampler.both_pass)
    return a, b, c, n - a - b - c


def _binary(resampler: DesignResampler) -> bool:
    """Whether the design is one of 0/1 scores on independent cases in one stratum."""
    return len(resampler.design.weight) == 1 and is_binary(resampler)


def audit_methods(resampler: DesignResampler) -> tuple[str, ...]:
    """Every interval method valid for the design but the costly ``"calibrated"``.

    The bootstrap methods for every design of a mean; Tango's and Newcombe's
    score intervals for 0/1 scores on independent cases in one stratum
    (Newcombe's needs the cases both models pass).
    """
    out = ["percentile", "basic", "bca", "studentized"]
    if _binary(resampler):
        out.append("tango")
        if resampler.both_pass is not None:
            out.append("newcombe")
    return tuple(out)


def audit_tests(resampler: DesignResampler) -> tuple[str, ...]:
    """Return the tests valid for the design: randomization, and exact binomial for 0/1 scores."""
    return ("randomization", "exact_binomial") if _binary(resampler) else ("randomization",)


class _SharedDraws:
    """A resampler whose inner replicates are drawn once and read by every method.

    ``replicates`` returns the bootstrap-t's ``theta*``, which are the plain
    bootstrap's replicates bit for bit (the same streams and sums), so each
    method's interval is exactly what ``bootstrap`` would give on this data.
    """

    def __init__(self, inner: DesignResampler, n_resamples: int,
                 seed_sequence: np.random.SeedSequence) -> None:  # fmt: skip
        self._inner = inner
        self._st: Studentized | None = None
        self._n = n_resamples
        self._ss = seed_sequence

    def studentized(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> Studentized:
        if self._st is None:
            self._st = self._inner.studentized(self._n, self._ss, batch)
        return self._st

    def replicates(
        self, n_resamples: int, seed_sequence: np.random.SeedSequence, batch: int | None
    ) -> tuple[np.ndarray, str]:
        st = self.studentized(n_resamples, seed_sequence, batch)
        return st.theta, st.engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def _outer_index(design: Design, gen: np.random.Generator) -> np.ndarray:
    """Draw ``G_h`` units with replacement within each stratum (sorted: order-free)."""
    ptr, sizes = design.unit_ptr, design.sizes
    return np.concatenate([
        np.sort(int(ptr[h]) + gen.integers(0, int(sizes[h]), size=int(sizes[h])))
        for h in range(len(sizes))
    ])  # fmt: skip


def _take(design: Design, idx: np.ndarray) -> Design:
    """Return the design of the units ``idx`` (strata unchanged: ``idx`` keeps their sizes)."""
    return replace(
        design, value=design.value[idx],
        count=None if design.count is None else design.count[idx],
    )  # fmt: skip


def _cells_design(sign: float, b: int, c: int, rest: int) -> Design:
    """Return a compressed one-stratum design of 0/1 differences with these discordant counts."""
    value = np.array([0.0, sign, -sign])
    freq = np.array([rest, b, c], dtype=np.int64)
    keep = freq > 0
    return Design(
        value=value[keep], count=None, unit_ptr=np.array([0, int(keep.sum())], dtype=np.int64),
        weight=np.ones(1), sign=sign, freq=freq[keep],
    )  # fmt: skip


def _cell_probabilities(resampler: DesignResampler) -> np.ndarray:
    """Shares of the cells of 0/1 scores: (both pass, only A, only B, both fail).

    Without the concordant split (``both_pass`` unknown), three cells: (same
    outcome, only A, only B).
    """
    cells = binary_cells(resampler)
    if cells is not None:
        counts = np.array(cells, dtype=np.float64)
    else:
        d = resampler.design
        f = d.row_weights()
        b = float(f[d.sign * d.value > 0].sum())
        c = float(f[d.sign * d.value < 0].sum())
        counts = np.array([float(f.sum()) - b - c, b, c])
    return counts / counts.sum()


def _outer_cells(
    gen: np.random.Generator, probs: np.ndarray, n: int, sign: float, four: bool
) -> tuple[Design, Design, int | None]:
    """Draw an outer resample of 0/1 cases, its sign-symmetrised null twin, its both-pass count."""
    drawn = [int(x) for x in gen.multinomial(n, probs)]
    if four:
        a, b, c, d = drawn
        rest, both = a + d, a
    else:
        rest, b, c = drawn
        both = None
    flips = int(gen.binomial(b + c, 0.5)) if b + c else 0
    return _cells_design(sign, b, c, rest), _cells_design(sign, flips, b + c - flips, rest), both


def _centred(design: Design) -> Design:
    """Each unit's value minus its stratum's ratio times its count: the null world."""
    centre, _ = rao_wu(design)
    stratum = np.repeat(np.arange(len(design.weight)), np.diff(design.unit_ptr))
    c = np.ones(design.value.size) if design.count is None else design.count.astype(np.float64)
    return replace(design, value=design.value - centre[stratum] * c)


def audit_design(
    resampler: DesignResampler,
    *,
    methods: tuple[str, ...],
    tests: tuple[str, ...],
    n_simulations: int,
    n_resamples: int,
    confidence_level: float,
    seed_sequence: np.random.SeedSequence,
) -> AuditCore:
    """Run the audit's simulations on a design of a mean (see the module docstring).

    Parameters
    ----------
    resampler : DesignResampler
        The comparison's bootstrap resampler (its design, small-sample
        correction and 0/1 facts).
    methods : tuple of str
        Interval methods to audit (checked by the caller to be valid here).
    tests : tuple of str
        Tests to audit (a subset of :data:`AUDIT_TESTS`).
    n_simulations : int
        Outer resamples.
    n_resamples : int
        Inner replicates (and permutations of the randomization test).
    confidence_level : float
    seed_sequence : numpy.random.SeedSequence
        The root of the streams.

    Returns
    -------
    AuditCore
    """
    base = resampler.design.expanded()
    cells = _cell_probabilities(resampler) if _binary(resampler) else None
    truth = full_sample_statistic(base)
    null_base = _centred(base)
    alpha = round(1.0 - confidence_level, 12)  # as every verdict reads it: 0.05, not 0.05 + 4e-17
    covered = np.zeros((len(methods), n_simulations), dtype=bool)
    width = np.zeros((len(methods), n_simulations))
    rejected = np.zeros((len(tests), n_simulations), dtype=bool)
    n_cols = 2 + len(tests)
    work = DRAW_SECONDS * base.n_units * n_resamples * n_simulations * n_cols
    work += FLIP_SECONDS * base.n_units * n_resamples * n_simulations
    engine = "none"
    small = work / n_simulations < SMALL_SECONDS
    with (
        small_calls() if small else engine_for(work),
        progress.bar(n_simulations, "audit", "simulation") as done,
    ):
        for s in range(n_simulations):
            outer_seq = stream_sequence(seed_sequence, "audit", s, OUTER_DRAW)
            gen = np.random.Generator(np.random.PCG64(outer_seq))
            inner_root = stream_sequence(seed_sequence, "audit", s, ANALYSES)
            if cells is not None:
                outer, null_outer, both = _outer_cells(gen, cells, base.n_units, base.sign,
                                                       resampler.both_pass is not None)  # fmt: skip
            else:
                idx = _outer_index(base, gen)  # the null world draws the same units
                outer, null_outer, both = _take(base, idx), _take(null_base, idx), None
            inner = DesignResampler(outer, small_sample=resampler.small_sample, both_pass=both,
                                    binary=resampler.binary)  # fmt: skip
            shared = _SharedDraws(inner, n_resamples, inner_root)
            estimate = full_sample_statistic(outer)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # degenerate outer resamples are counted as drawn
                for i, method in enumerate(methods):
                    core = bootstrap_replicates(
                        shared, estimate, n_resamples=n_resamples,
                        confidence_level=confidence_level, method=method,
                        seed_sequence=inner_root, batch=None,
                    )  # fmt: skip
                    ci = core.confidence_interval
                    covered[i, s] = ci.low <= truth <= ci.high
                    width[i, s] = ci.high - ci.low
                    engine = core.engine
                for j, test in enumerate(tests):
                    rejected[j, s] = _rejects(test, null_outer, n_resamples, alpha, inner_root)
            done(1)
    return AuditCore(
        methods=methods, covered=covered, width=width, tests=tests, rejected=rejected,
        truth=truth, engine=engine,
    )  # fmt: skip


def _rejects(
    test: str, design: Design, n_resamples: int, alpha: float, root: np.random.SeedSequence
) -> bool:
    """Whether ``test`` rejects "no difference" at ``alpha`` on a null outer resample.

    The rule of every verdict of the library: reject when ``p < alpha``.
    """
    if test == "exact_binomial":
        f = design.row_weights()
        b = int(f[design.sign * design.value > 0].sum())
        c = int(f[design.sign * design.value < 0].sum())
        if b + c == 0:
            return False
        p = binomial_test(b, c, alternative="two-sided", mid_p=False,
                          confidence_level=1.0 - alpha).pvalue  # fmt: skip
        return bool(p < alpha)
    core = randomization_design(
        design, n_permutations=n_resamples, alternative="two-sided", seed_sequence=root,
        batch=None,
    )  # fmt: skip
    return bool(core.pvalue < alpha)


def recommend(
    methods: tuple[str, ...],
    coverage: np.ndarray,
    mean_width: np.ndarray,
    confidence_level: float,
    n_simulations: int,
    preferred: str | None = None,
) -> tuple[str, str]:
    """Pick the interval method to trust, and say why in one sentence.

    A method *keeps its level* when its estimated coverage is at least the
    nominal level less two Monte Carlo standard errors of a coverage at the
    nominal level (``sqrt(level (1 - level) / n_simulations)``: the audit
    cannot tell such a method from one at its level). ``preferred`` (the
    method ``"auto"`` chose) is recommended when it keeps its level: the
    audit then confirms the library's rule. Otherwise the narrowest on
    average of those that keep their level (the higher coverage on a tie),
    and when none does, the one that covered most.
    """
    se = math.sqrt(confidence_level * (1.0 - confidence_level) / n_simulations)
    ok = [i for i in range(len(methods)) if coverage[i] + 2.0 * se >= confidence_level]
    level = f"{100 * confidence_level:g}%"

    def covered(i: int) -> str:
        return f"covered the observed improvement in {100 * coverage[i]:.1f}% of the simulations"

    if preferred in methods and methods.index(preferred) in ok:
        k = methods.index(preferred)
        return methods[k], (
            f"it is the method 'auto' chooses for this design, and it {covered(k)}, "
            f"consistent with the nominal {level}"
        )
    if ok:
        best = min(ok, key=lambda i: (mean_width[i], -coverage[i]))
        return methods[best], (
            f"{methods[best]} {covered(best)}, consistent with the nominal {level}, with the "
            "narrowest intervals of the methods that kept their level"
        )
    best = int(np.argmax(coverage))
    return methods[best], (
        f"no method kept its {level} level on this design; {methods[best]} came closest: it "
        f"{covered(best)}, so read its interval as narrower than it should be"
    )
