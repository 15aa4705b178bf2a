"""The selection forms of the ``paired`` accessors: ``select_best`` and ``split``.

:class:`SelectionForms` chooses the best of several candidates against a
baseline with an interval that accounts for the choice
(:func:`pdpaired.analysis.selection.select_best`), and splits a table into
selection and confirmation parts through the front end's ``_split_cases``
hook (:func:`pdpaired.analysis.selection.split_table`). It is a mixin over
:class:`~pdpaired._frontend.several_models.SeveralModelForms` (whose model
labels it reads) and keeps no state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._frontend.several_models import SeveralModelForms
from pdpaired._lib.docs import compose
from pdpaired._lib.progress import with_progress

if TYPE_CHECKING:  # the analysis layer loads on the first analysis, not at import
    from pdpaired.analysis.comparison import Comparison
    from pdpaired.core.metrics import Metric
    from pdpaired.results.selection import SelectionResult
    from pdpaired.results.split import SplitResult

__all__ = ["SelectionForms"]


class SelectionForms(SeveralModelForms):
    """``select_best`` and ``split`` of the ``paired`` accessors (no state of its own)."""

    @with_progress
    @compose
    def select_best(
        self,
        candidates: Sequence[Any] | None,
        baseline: Any,
        *,
        metric: str | Metric = "mean",
        higher_is_better: bool | None = None,
        missing: str = "error",
        fill_value: float | None = None,
        class_labels: Sequence[Any] | None = None,
        threshold: float = 0.5,
        n_resamples: int = 10_000,
        confidence_level: float = 0.95,
        method: str = "auto",
        rng: int | np.random.Generator | None = None,
        unit: str | None = None,
        weighting: str = "item",
        stratified: bool | None = None,
        stratum_weights: Mapping[Any, float] | pd.Series | None = None,
        practical_threshold: float = 0.0,
        batch: int | None = None,
        interval: str = "max-t",
    ) -> SelectionResult:
        """Choose the best candidate against a baseline, with an interval that accounts for it.

        Every candidate is compared with the baseline on the same cases from
        one joint resampling (as :meth:`against`); the one with the largest
        improvement (direction adjusted; ties to the first listed) is
        selected. Its naive interval -- its own bootstrap interval, as if it
        had been named before looking -- covers its true improvement less
        often than its level says, because it was chosen for looking good
        on these very cases. The reported interval accounts for the choice.

        ``interval="max-t"`` (the default) reads the winner's interval in
        the simultaneous band of all the candidates: the
        ``confidence_level`` quantile of ``max_j |d*_j - d_j| / se_j`` over
        the joint replicates. All candidates' intervals cover together, so
        the selected one covers at its level whatever the rule of choice --
        also a candidate picked by eye, or by another metric -- and with
        pass/fail scores, where candidates often tie. It is longer than it
        needs to be when one candidate clearly wins (with eight candidates
        about 1.4 times the naive interval).

        ``interval="hybrid"`` is the hybrid interval of Andrews, Kitagawa &
        McCloskey (2024, "Inference on winners"): it inverts the
        distribution of the winner's estimate given that it won (a normal
        approximation with the joint bootstrap covariance), truncated to the
        max-t band at a small level. For the rule "largest estimate" on
        continuous scores it covers at its level and is shorter (about the
        naive interval when one candidate clearly wins). It assumes the
        winner's estimate lies strictly above the others': with ties for
        the best (frequent with 0/1 scores) it reports the max-t interval
        and warns, and on 0/1 scores without that fallback it covered only
        0.86 where 0.95 was asked. See the "Multiple comparisons and
        selection" concept page for the simulations.

        Parameters
        ----------
        candidates : list or None
            The candidates (prompts, checkpoints, ...); None: every model of
            the table but the baseline.
        baseline : str
            The reference model.
        ${compare_options}
        n_resamples : int, default 10000
            Joint bootstrap replicates.
        confidence_level : float, default 0.95
        method : str, default "auto"
            The method of each candidate's naive interval (as in
            :meth:`bootstrap`); the selection interval is always max-t.
        rng : int, numpy.random.Generator or None
            Seed (SPEC 7); ``rng=result.seed`` reproduces the result.
        unit : {"case", "group"}, optional
            Resampling unit (default: groups when the table has a group column).
        weighting : {"item", "group"}, default "item"
        stratified : bool, optional
            Resample within strata (default: when the table has a stratum column).
        stratum_weights : mapping, optional
            Population share of each stratum.
        practical_threshold : float, default 0.0
            The smallest improvement that matters, for the verdict.
        batch : int, optional
            Replicates evaluated at once (never changes results).
        interval : {"max-t", "hybrid"}, default "max-t"
            How the selected candidate's interval accounts for the choice.
        ${progress_param}

        Returns
        -------
        SelectionResult

        See Also
        --------
        split : Select on one part of the cases, confirm on the other.
        against : Every candidate against the baseline, each interval on its own.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> rng = np.random.default_rng(0)
        >>> n = 400
        >>> truth = rng.uniform(size=n)
        >>> prompts = [f"prompt{j}" for j in range(6)]
        >>> df = pd.DataFrame({
        ...     "case_id": np.tile(np.arange(n), 7),
        ...     "model": np.repeat(["base", *prompts], n),
        ...     "score": np.concatenate([truth] + [truth + rng.normal(0.0, 0.2, n)
        ...                                        for _ in prompts]),
        ... })
        >>> res = df.paired.select_best(prompts, "base", higher_is_better=True, rng=0,
        ...                             n_resamples=2000)
        >>> res.selected
        'prompt2'
        >>> naive, fair = res.naive_interval, res.confidence_interval
        >>> bool(fair.low < naive.low and fair.high > naive.high)  # it pays for the choice
        True
        >>> res.method
        'max-t'
        """
        from pdpaired.analysis.multi import model_pairs
        from pdpaired.analysis.selection import select_best
        from pdpaired.core.options import bootstrap_iv

        opts = bootstrap_iv(
            n_resamples=n_resamples, confidence_level=confidence_level, method=method,
            batch=batch, practical_threshold=practical_threshold, noninferiority_margin=None,
        )  # fmt: skip
        if isinstance(candidates, (str, bytes)):
            msg = f"`candidates` must be a list of model labels or None; got {candidates!r}."
            raise TypeError(msg)
        cols = self._columns()
        present = self._model_labels(cols)
        chosen, _ = model_pairs(present, baseline, candidates)
        compare_kw = {
            "metric": metric, "higher_is_better": higher_is_better, "missing": missing,
            "fill_value": fill_value, "class_labels": class_labels, "threshold": threshold,
        }  # fmt: skip

        def make(pairs: Sequence[tuple[Any, Any]]) -> list[Comparison]:
            return self._make_many(cols, list(pairs), **compare_kw)

        return select_best(
            make, chosen[1:], baseline, opts, rng=rng, unit=unit, weighting=weighting,
            stratified=stratified, stratum_weights=stratum_weights, interval=interval,
        )  # fmt: skip

    def split(
        self,
        fraction: float = 0.5,
        *,
        by: str | None = None,
        stratify: str | None = None,
        rng: int | np.random.Generator | None = None,
    ) -> SplitResult:
        """Split the cases into a selection and a confirmation part, reproducibly.

        Choose on ``result.selection`` (prompts, checkpoints, thresholds,
        with :meth:`select_best` or any other way), then compare the chosen
        candidate on ``result.confirmation``: that comparison is fresh and
        fixed in advance, so its ordinary interval is honest.
        ``cmp.report(..., split=result)`` checks that the comparison's cases
        all lie in the confirmation part and records the split in the
        artifact. Every row of a case goes to the same part (whole groups
        with ``by``); the table is not modified.

        Parameters
        ----------
        fraction : float, default 0.5
            Share of the units (cases, or groups with ``by``) in the
            selection part, strictly between 0 and 1; within each stratum
            ``round(fraction * G)`` of its ``G`` units (at least one in each
            part when ``G >= 2``).
        by : str, optional
            A group column: whole groups go to one part (near-duplicate
            items, documents, users).
        stratify : str, optional
            A column constant within each unit: the fraction applies within
            each of its values (task, difficulty).
        rng : int, numpy.random.Generator or None
            Seed (SPEC 7): the same seed gives the same split of the same
            table, whatever its row order.

        Returns
        -------
        SplitResult
            ``selection`` and ``confirmation`` tables and the record of the
            split.

        Examples
        --------
        >>> import numpy as np, pandas as pd
        >>> import pdpaired
        >>> df = pd.DataFrame({
        ...     "case_id": np.tile(np.arange(100), 2),
        ...     "model": np.repeat(["a", "b"], 100),
        ...     "score": np.arange(200) % 7,
        ...     "task": np.tile(np.repeat(["math", "code"], 50), 2),
        ... })
        >>> sp = df.paired.split(0.3, stratify="task", rng=0)
        >>> sp.n_selection_cases, sp.n_confirmation_cases
        (30, 70)
        >>> sp.selection.groupby("task")["case_id"].nunique().to_dict()
        {'code': 15, 'math': 15}
        """
        return self._split_cases(fraction, by=by, stratify=stratify, rng=rng)
