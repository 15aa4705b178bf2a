"""pdpaired's pytest plugin: a release gate as a test, with the ``paired_gate`` fixture.

``paired_gate(df, "A", "B", fail_on=..., **kw)`` runs the report of the
comparison of A with B on a long table and fails the test, with the gate's
one-sentence reason, when the release gate fails; when it passes it returns
the report. Installing pdpaired registers the plugin with pytest (a
``pytest11`` entry point), so the fixture is there in every test session;
``pytest -p pdpaired.pytest_plugin`` loads it where the entry point is not
installed, and ``pytest -p no:pdpaired`` turns it off.

The entry point loads a module that imports neither pdpaired nor pandas: a
test session that never asks for the fixture pays nothing for it. This
module is the fixture's public home and the one ``-p`` names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from pdpaired.artifacts.report import ComparisonReport

__all__ = ["COLUMN_KEYWORDS", "check_gate", "paired_gate"]

#: The keywords that name columns (the accessor's configuration call,
#: ``df.paired(case=..., score=...)``); every other keyword goes to the report.
COLUMN_KEYWORDS = (
    "case", "model", "score", "group", "stratum", "target", "prediction", "repeat", "run",
    "factors",
)  # fmt: skip


def check_gate(
    df: Any, a: Any, b: Any, *, fail_on: str = "not-a-better", **kw: Any
) -> ComparisonReport:
    """Run the report of ``a`` against ``b`` and fail the test when the release gate fails.

    Parameters
    ----------
    df : DataFrame or PairedAccessor
        A long table (its ``paired`` accessor is used), or an accessor
        already configured with its column names (``df.paired(score="acc")``).
    a, b : hashable
        The candidate and the baseline, as named in the model column.
    fail_on : {"not-a-better", "b-better", "not-noninferior"}, default "not-a-better"
        The gate's condition (see ``ComparisonReport.gate``): by default the
        test fails unless A is shown better than B.
    **kw
        Column names (``case``, ``model``, ``score``, ``group``, ``stratum``,
        ``target``, ``prediction``, ``repeat``, ``run``) configure the
        accessor of a table; every other keyword is a keyword of
        ``df.paired.report`` -- of the comparison (``metric``,
        ``higher_is_better``, ``missing`` ...) or of the report
        (``n_resamples``, ``practical_threshold``, ``noninferiority_margin``,
        ``rng`` ...). Give ``rng`` so that a re-run of the test reproduces
        the decision.

    Returns
    -------
    ComparisonReport
        The report, when the gate passes (``report.gate(fail_on)`` is its gate).

    Raises
    ------
    pytest.fail.Exception
        The gate fails: the test fails with the gate's reason, without a traceback.
    TypeError
        Column names given with an accessor that is already configured, or
        a keyword that ``report`` does not take.
    ValueError
        An unknown ``fail_on``, or ``"not-noninferior"`` without
        ``noninferiority_margin`` (the test errors: a broken gate never passes).

    Examples
    --------
    >>> import pdpaired
    >>> from pdpaired.datasets import load_digits_cv
    >>> from pdpaired.pytest_plugin import check_gate
    >>> rep = check_gate(load_digits_cv(), "knn", "logreg", score="correct",
    ...                  higher_is_better=True, n_resamples=2000, n_permutations=1000, rng=0)
    >>> rep.gate("not-a-better").passed
    True
    >>> check_gate(load_digits_cv(), "logreg", "knn", score="correct",
    ...            higher_is_better=True, n_resamples=2000, n_permutations=1000, rng=0)
    Traceback (most recent call last):
    ...
    Failed: Release gate fail_on='not-a-better' failed. Verdict b_better: ...
    """
    from pdpaired._lib.format import printable

    columns = {k: kw.pop(k) for k in COLUMN_KEYWORDS if k in kw}
    if hasattr(df, "paired"):
        accessor = df.paired(**columns) if columns else df.paired
    elif columns:
        msg = (
            f"column names ({', '.join(columns)}) configure a table's accessor; "
            f"`df` is already an accessor ({type(df).__name__}): configure it there."
        )
        raise TypeError(msg)
    else:
        accessor = df
    report = accessor.report(a, b, **kw)
    result = report.gate(fail_on)
    if result.failed:
        pytest.fail(
            f"Release gate fail_on={result.fail_on!r} failed. {printable(result.reason)}",
            pytrace=False,
        )
    return report  # type: ignore[no-any-return]


@pytest.fixture
def paired_gate() -> Callable[..., ComparisonReport]:
    """Fail the test when a paired comparison's release gate fails.

    The fixture is :func:`check_gate`: ``paired_gate(df, "A", "B",
    fail_on="not-a-better", **kw)`` runs ``df.paired.report("A", "B", **kw)``,
    calls ``pytest.fail`` with the gate's reason when the gate fails and
    returns the report when it passes.

    Returns
    -------
    callable
        :func:`check_gate`.
    """
    return check_gate
