"""Validated options of the analyses: checked once at the public entry, trusted below.

Each public analysis method calls its ``*_iv`` function (scipy's
``_bootstrap_iv`` pattern) on the arguments the user gave and passes the
frozen options object on; the comparison's internals and the core loops never
check them again. Messages name the parameter in backticks, state the rule and
show the bad value.
"""

from __future__ import annotations

from dataclasses import dataclass

from pdpaired._lib.validation import (
    check_bool,
    check_choice,
    check_confidence_level,
    check_memory,
    check_nonneg_float,
    check_positive_int,
)
from pdpaired.core.bootstrap import METHODS
from pdpaired.core.randomization import ALTERNATIVES

__all__ = [
    "REPLICATE_BYTES",
    "BootstrapOptions",
    "ExactBinomialOptions",
    "RandomizationOptions",
    "bootstrap_iv",
    "exact_binomial_iv",
    "randomization_iv",
]

#: Memory a bootstrap replicate or a permutation holds at once at least: its value,
#: the copy an interval or p-value sorts, and the kept-values mask and its copy.
REPLICATE_BYTES = 24


@dataclass(frozen=True, slots=True, kw_only=True)
class BootstrapOptions:
    """The bootstrap's validated options (the design arguments are checked with the design)."""

    n_resamples: int | str  # or "auto"
    confidence_level: float
    method: str
    batch: int | None
    practical_threshold: float
    noninferiority_margin: float | None


@dataclass(frozen=True, slots=True, kw_only=True)
class RandomizationOptions:
    """The randomization test's validated options."""

    n_permutations: int
    alternative: str
    batch: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class ExactBinomialOptions:
    """The exact binomial test's validated options."""

    alternative: str
    mid_p: bool
    confidence_level: float


def bootstrap_iv(
    *,
    n_resamples: object,
    confidence_level: object,
    method: object,
    batch: object,
    practical_threshold: object,
    noninferiority_margin: object,
) -> BootstrapOptions:
    """Check the bootstrap's arguments and return them normalized."""
    n: int | str | None
    if isinstance(n_resamples, str) and n_resamples == "auto":
        n = "auto"  # extended until the endpoints' Monte Carlo error is small
    else:
        n = check_positive_int(n_resamples, "n_resamples")
        assert n is not None
        check_memory(n, REPLICATE_BYTES, "n_resamples")
    level = check_confidence_level(confidence_level)
    method = check_choice(method, "method", ("auto", *METHODS))
    size = check_positive_int(batch, "batch", optional=True)
    threshold = check_nonneg_float(practical_threshold, "practical_threshold")
    margin = check_nonneg_float(noninferiority_margin, "noninferiority_margin", optional=True)
    assert n is not None
    assert threshold is not None
    return BootstrapOptions(
        n_resamples=n if n == "auto" else int(n), confidence_level=level, method=str(method),
        batch=size, practical_threshold=threshold, noninferiority_margin=margin,
    )  # fmt: skip


def randomization_iv(
    *, n_permutations: object, alternative: object, batch: object
) -> RandomizationOptions:
    """Check the randomization test's arguments and return them normalized."""
    n = check_positive_int(n_permutations, "n_permutations")
    alternative = check_choice(alternative, "alternative", ALTERNATIVES)
    size = check_positive_int(batch, "batch", optional=True)
    assert n is not None
    check_memory(n, REPLICATE_BYTES, "n_permutations")
    return RandomizationOptions(n_permutations=int(n), alternative=str(alternative), batch=size)


def exact_binomial_iv(
    *, alternative: object, mid_p: object, confidence_level: object
) -> ExactBinomialOptions:
    """Check the exact binomial test's arguments and return them normalized."""
    return ExactBinomialOptions(
        alternative=check_choice(alternative, "alternative", ALTERNATIVES),
        mid_p=check_bool(mid_p, "mid_p"),
        confidence_level=check_confidence_level(confidence_level),
    )
