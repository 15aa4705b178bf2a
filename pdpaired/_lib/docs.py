"""Parameter documentation written once, composed into every docstring that takes it.

The pandas and Dask accessors' one-call forms take the keywords of ``compare``
and of the analysis they run; the :class:`~pdpaired.Comparison` methods take
the analysis keywords. Each parameter is described here once and
:func:`compose` substitutes the blocks into the docstrings (pandas'
``@doc``/``Substitution`` pattern), so every method's page lists every
parameter it takes and no two descriptions can drift apart.

A docstring names a block as ``${name}`` on a line of its own; the decorated
function's docstring is dedented first, so blocks are written without
indentation.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from string import Template
from typing import TypeVar

__all__ = ["BLOCKS", "compose"]

F = TypeVar("F", bound=Callable[..., object])

_COLUMNS = """\
case, model, score : str
    Case id, model label and per-case score columns.
group : str or None
    Cluster column (document, user, prompt group...). Default: the
    column ``group`` if present; None switches clustering off.
stratum : str or None
    Stratum column. Default: ``stratum`` if present; None switches it off.
target : str, optional
    Prediction mode: the ground-truth column (identical for both
    models' rows of a case).
prediction : str or list of str, optional
    Prediction mode: one column (positive-class probability, score or
    regression value) or one probability column per class.
repeat : {None, "sample"}, default None
    ``"sample"``: several rows per (case, model), one per run (independent
    samples of the model's output: temperature sampling, epochs); a case's
    score is the mean over its runs. Score mode only. See the "Repeated
    runs" guide.
run : str, default "run"
    With ``repeat``: the run id column ((case, model, run) must be unique).
    With ``factors``, used only when the table has it: it tells apart
    several rows of one cell, whose mean is the cell's value.
task : str, optional
    The column naming each row's task, read by ``suite`` only (the other
    analyses compare the whole table); ``suite``'s own ``task`` argument
    takes precedence, and without either it reads ``task``.
factors : str or list of str, optional
    With ``repeat="sample"``: factor columns crossed with the cases
    (training or decoding seed, prompt template, judge), whose levels mean
    the same for every case and for both models; each case is run under
    every combination of levels, and A and B are paired within each cell.
    ``bootstrap(resample_factors=True)`` resamples the levels too and
    ``variance_components()`` has one row per axis. See the "Repeated runs"
    guide."""

_REPEATS = """resample_repeats : bool, default False
    With repeated runs (``df.paired(repeat="sample")``): a two-stage
    bootstrap that resamples the units (cases or groups, within strata),
    then each drawn case's runs of each model, adjusted so that the run
    noise is counted once (Davison & Hinkley 1997, sec. 3.8). False (the
    default) resamples the cases' run means, equally valid for the mean
    over cases; see the "Repeated runs" guide for when each is right."""

_FACTORS = """resample_factors : bool, default False
    With crossed factors (``df.paired(repeat="sample", factors=[...])``):
    the pigeonhole bootstrap, which resamples the cases and, independently,
    every factor's levels, keeping A and B paired within every cell, so the
    interval covers a new case *and* a new level of every factor (a new
    seed, a new prompt). Conservative: it counts the interactions more than
    once (Owen 2007). Percentile and basic intervals only. False (the
    default) resamples the cases' means over their cells: an interval for
    new cases run with these same levels (a warning says so)."""

_COMPARE = """\
a, b : str
    Model labels; positive improvements mean A is better.
metric : str or Metric, default "mean"
    ``"mean"`` of the per-case score (score mode); in prediction mode a
    corpus metric recomputed on every resample: ``"auroc"``,
    ``"accuracy"``, ``"f1"``, ``"log_loss"``, ``"brier"`` (binary),
    ``"accuracy"``, ``"log_loss"``, ``"macro_f1"`` (multiclass),
    ``"mae"``, ``"rmse"``, ``"r2"`` (regression), or a
    :class:`~pdpaired.Metric`.
higher_is_better : bool
    Required for ``"mean"``: the direction of the score. Prediction
    metrics know their direction (giving the opposite is an error).
missing : {"error", "complete-case", "as-failure"}
    Policy for a case with no output (absent row or NaN) for a model:
    raise (default); drop the case for both models; or give the missing
    output ``fill_value`` (default for 0/1 scores: the worse value).
fill_value : float, optional
    The value ``"as-failure"`` fills in.
class_labels : sequence, optional
    Binary metrics: ``(negative, positive)`` target values (default:
    targets are 0/1). Multiclass: the class of each probability column,
    in order (default: the column names if the targets are among them,
    else ``0 .. K-1``). Not used in score mode.
threshold : float, default 0.5
    Binary label metrics (accuracy, F1) predict the positive class
    when ``probability > threshold``. Not used in score mode."""

_RNG = """\
rng : int, numpy.random.Generator or None
    Seed (SPEC 7). With None a fresh seed is drawn and recorded in
    ``result.seed``, so ``rng=result.seed`` reproduces the result."""

_WEIGHTING = """\
weighting : {"item", "group"}, default "item"
    ``"item"``: mean over cases (each drawn group contributes its sum
    and its count); ``"group"``: mean of group means."""

_UNIT = f"""\
unit : {{"case", "group"}}, optional
    Resampling unit; ``"group"`` by default when a group column is set.
    Each replicate draws exactly as many whole groups as there are.
{_WEIGHTING}"""

_SWAP_UNIT = f"""\
unit : {{"case", "group"}}, optional
    What swaps together; ``"group"`` by default when a group column is
    set (all cases of a group swap together).
{_WEIGHTING}"""

_STRATUM_WEIGHTS = """\
stratum_weights : mapping, optional
    Population share of each stratum (sums to 1); default the observed
    shares. The estimate is ``sum_h w_h * mean_h``."""

_BATCH = """\
batch : int, optional
    Replicates evaluated at once; bounds memory, never changes results."""

_BOOTSTRAP = f"""\
n_resamples : int or "auto", default 10_000
    Bootstrap replicates. ``"auto"`` draws 2,000, then more (the addressed
    streams make this bit-identical to asking for that many at once) until
    the Monte Carlo standard error of both interval endpoints is at most 1%
    of the bootstrap standard error, or 1,000,000 resamples; the result's
    ``n_resamples`` is the number used.
confidence_level : float, default 0.95
    Level of the interval.
method : str, default "auto"
    Interval method: ``"auto"``, ``"percentile"``, ``"basic"``, ``"bca"``,
    ``"studentized"``, ``"calibrated"``, ``"tango"`` or ``"newcombe"``.
    ``"auto"`` chooses from the design (the bootstrap
    guide's table; ``result.method`` is the concrete name and
    ``result.method_reason`` says why): Tango's interval for 0/1 scores on
    independent cases, the bootstrap-t for continuous scores on fewer
    than 100 independent cases or with skewness of at least 1, the
    corrected percentile interval for strata and clusters, BCa for a
    corpus metric whose jackknife is affordable, else the percentile
    interval. Percentile, basic and BCa follow scipy's conventions;
    BCa's acceleration uses a closed-form jackknife over the resampling
    unit. ``"studentized"`` (bootstrap-t: each replicate divided by its
    own standard error) and ``"calibrated"`` (the double bootstrap's
    calibrated percentile levels, 1000 x 500 inner resamples) need a
    mean of per-case scores. ``"tango"``
    and ``"newcombe"`` (0/1 scores, cases resampled without strata) are
    score intervals for the paired difference of proportions, which keep
    their level with few discordant pairs: Tango's (1998) and Newcombe's
    (1998, method 10: Wilson intervals of both pass rates combined with
    the phi correlation); the replicates are still drawn (for the
    standard error and the plot).
{_RNG}
{_UNIT}
stratified : bool, optional
    Resample within strata (default when a stratum column is set).
{_STRATUM_WEIGHTS}
practical_threshold : float, default 0.0
    Smallest improvement that matters; ``superior_ci`` requires
    ``confidence_interval.low > practical_threshold``.
noninferiority_margin : float, optional
    ``noninferior`` is ``confidence_interval.low >= -margin``.
{_BATCH}"""

_RANDOMIZATION = f"""\
n_permutations : int, default 10_000
    Random assignments; every one of the ``2**n_units`` assignments is
    enumerated instead when that is not more (then ``exact=True``).
alternative : {{"two-sided", "greater", "less"}}
    Declare it before looking at the data. ``"greater"``: A better
    than B; ``"less"``: A worse; two-sided counts ``|T*| >= |t|``.
{_RNG}
{_SWAP_UNIT}
{_STRATUM_WEIGHTS}
{_BATCH}"""

_EXACT_BINOMIAL = """\
alternative : {"two-sided", "greater", "less"}
    ``"greater"``: the upper tail of ``a_only`` (A better); ``"less"``:
    the lower tail; ``"two-sided"``: twice the smaller tail, capped at 1.
mid_p : bool, default False
    The mid-p variant: half the probability of the observed count.
confidence_level : float, default 0.95
    Level of the Clopper-Pearson interval of ``a_only / n``."""

_SLICE_COLUMNS = """\
columns : str or list of str
    Slice columns (constant within a case), each analysed separately."""

_BY_SLICE = f"""\
min_size : int, default 30
    Slices with fewer cases are listed as skipped, with their size.
uncertainty : bool, default False
    Add a paired bootstrap interval and a randomization p-value per
    slice (same design as the overall analysis), p-values adjusted
    across every reported slice, and a heterogeneity test.
n_resamples, n_permutations : int, default 2000
    Per slice, and for the overall row; ``n_permutations`` is also the
    number of permutations of slice labels of the heterogeneity test
    (score mode).
adjust : {{"holm", "bonferroni", "fdr_bh"}} or None, default "holm"
    Multiplicity adjustment (Holm, not statsmodels' default Holm-Sidak).
rng : int, numpy.random.Generator or None
    Seed (SPEC 7), recorded in ``result.seed`` and in every row: the
    same call with ``rng=result.seed`` reproduces every row. Slice
    ``(column, value)`` reads its own streams of the seed, addressed
    by a SHA-256 digest of the pair (``"slice:site=3:bootstrap"``,
    ...), so adding or removing another slice never changes its result.
confidence_level : float, default 0.95
    Level of the per-slice intervals.
practical_threshold : float, default 0.0
    Drawn as a line in the forest plot.
unit, weighting : optional
    As in ``bootstrap``; by default the overall analysis' design.
method : str, default "auto"
    Interval method of each slice's bootstrap, as in ``bootstrap``;
    ``"auto"`` chooses from each slice's own design (a slice of few
    cases may get the bootstrap-t where the whole table gets the
    percentile interval); the table's ``method`` column says which.
{_BATCH}"""

_REPORT = """\
n_resamples, n_permutations : int, default 10_000
    Bootstrap replicates and randomization assignments; ``n_permutations=0``
    skips the randomization test (the report's ``randomization`` is None).
slices : str or list of str, optional
    Slice columns for ``by_slice``.
min_slice_size : int, default 30
    Slices with fewer cases are listed as skipped.
slice_uncertainty : bool, default False
    Intervals, p-values and the heterogeneity test per slice.
practical_threshold, noninferiority_margin : float
    The decisions, as in ``bootstrap``. Declare them before looking.
confidence_level : float, default 0.95
    Level of the intervals.
method : str, default "auto"
    Interval method of the bootstrap, as in ``bootstrap`` (``"auto"``:
    chosen from the design, with the reason in the report).
alternative : {"two-sided", "greater", "less"}
    Alternative of the tests.
rng : int, numpy.random.Generator or None
    Seed (SPEC 7), recorded in ``report.seed`` and in every part; each
    part reads its own stream of it (``"report:bootstrap"``, ...), so the
    same call with ``rng=report.seed`` reproduces the whole report.
unit, weighting : optional
    As in ``bootstrap``.
score_range : (float, float), optional
    The worst and best possible score ``(lower, upper)``, for the
    missing-outcome sensitivity (``report.sensitivity``): when outcomes
    are missing, the report bounds what they could change (identified
    set, Imbens-Manski interval, tipping point; see ``sensitivity``).
    Binary 0/1 scores and classification probabilities need none; other
    scores are bounded only when it is given (otherwise the report says
    the sensitivity was not computed). Ignored when no outcome is
    missing.
split : SplitResult, optional
    The split (``df.paired.split``) whose confirmation part the compared
    table is: every case analysed must lie in that part (else a ValueError
    names the first cases in the selection part), and the artifact records
    the split (its rule and counts; the local artifact also the digests of
    both parts' case ids)."""

_REPORT_INPUTS = """\
inputs : list of dict, optional
    Provenance of the input files, ``[{"path": ..., "sha256": ...}]``
    (the command line fills it); default: the SHA-256 of the
    canonical in-memory table."""

_PASS = """\
a, b : str
    Model labels; positive improvements mean A is better.
k : int
    Number of attempts (at least 1); every (case, model) needs at least
    ``k`` samples, else :class:`~pdpaired.PairingError` names the cases.
correct : str, default "correct"
    The 0/1 (or boolean) column: one row per sample, 1 for a correct one.
missing : {"error", "complete-case", "as-failure"}
    Policy for a missing sample (NaN in ``correct``): raise (default),
    drop it, or count it as incorrect; then, as in any comparison, for a
    case with no sample for a model: raise, drop the case for both models,
    or give it ``fill_value``.
fill_value : float, optional
    The per-case estimate ``"as-failure"`` gives a case with no sample
    (default 0, the worst)."""

_COLLECT = """\
collect : bool, default False
    Dask tables only: continuous scores resampled (or swapped) by case
    bring every case's difference to the client, bit-identical to the
    pandas path, instead of the in-partition Poisson bootstrap / sign
    flips. A pandas table is already in memory, so there it changes
    nothing (accepted so that the same call runs on both)."""

_PROGRESS = """\
progress : bool, optional
    A progress bar (tqdm, ``pip install 'pdpaired[progress]'``) once the
    analysis has run for 2 seconds: a widget in Jupyter, a bar on a
    terminal's stderr, nothing when stderr is not a terminal (default
    None). False: never (``PDPAIRED_PROGRESS=0`` turns it off for the
    process); True: also when stderr is not a terminal. It never changes a
    number."""

_SEQUENTIAL = """\
order : str
    The column giving each case's arrival (a timestamp or an arrival
    index; the case id column itself is allowed). Like a slice column
    it must agree between A's and B's row of a case; ties arrive in
    case-id order.
alpha : float, default 0.05
    Miscoverage: with probability at least ``1 - alpha`` the sequence
    covers the mean difference at every look at once.
bounds : (float, float), optional
    The range every score difference ``A - B`` can take, fixed before
    seeing the data: ``(-1, 1)`` by default for 0/1 scores, required
    otherwise (``(l - u, u - l)`` for scores in [l, u]). A difference
    outside it is an error. With ``higher_is_better=False`` the
    sequence runs on ``B - A`` with the range mirrored.
alternative : {"two-sided", "greater", "less"}
    ``"greater"``: a lower bound only (A better?), ``"less"``: an
    upper bound only; one-sided sequences spend all of ``alpha`` on
    their side."""

_MULTI = """\
adjust : {"holm", "fdr_bh", "bonferroni"} or None, default "holm"
    Adjustment of the comparisons' p-values for multiplicity: Holm's
    step-down and Bonferroni control the family-wise error rate,
    Benjamini-Hochberg (``"fdr_bh"``) the false discovery rate; None
    leaves them unadjusted.
simultaneous : bool, default True
    True: the intervals cover every comparison at once with
    ``confidence_level`` -- the max-t band of the joint replicates
    (each comparison's estimate plus or minus one critical value times
    its bootstrap SD), which replaces each comparison's ``method``
    interval (``MultiResult.method`` is then ``"max-t"``), and the
    verdicts read it. False: each comparison's own interval, equal to
    the two-model call. :meth:`MultiResult.ranks` gives simultaneous
    rank sets either way."""
_PLAN = """\
power : float, default 0.8
    Target power, in (alpha, 1).
alpha : float, default 0.05
    Level of the test (two-sided: a 95% interval excluding 0).
alternative : {"two-sided", "greater", "less"}
    ``"greater"``: the test for A better.
effect : float, optional
    An improvement of A over B (positive: A better) to plan for:
    ``n_cases_needed`` and ``n_groups_needed``.
n_cases : int, optional
    The size at which ``mde`` is computed (default: the current size).
method : {"analytic", "simulation"}
    ``"analytic"``: the noncentral t (normal approximation with the
    design effect; for 0/1 scores without groups, the exact power of
    the exact binomial test by enumeration). ``"simulation"``:
    resample the observed units (within strata), shift them to each
    effect and run the test on every simulated comparison.
n_simulations : int, default 2000
    Simulated comparisons per size (simulation; in prediction mode,
    the bootstrap resamples that give the standard error).
rng : int, numpy.random.Generator or None
    Seed of the simulation (unused by ``method="analytic"`` in score
    mode); ``rng=result.seed`` reproduces a result.
test : {None, "bootstrap", "randomization", "exact_binomial"}
    The test you will run. None: the one ``report()`` decides with, the
    exact binomial test for 0/1 scores without groups (and no practical
    threshold), else the bootstrap interval. ``"bootstrap"``: the
    interval excludes 0 (or the practical threshold), planned through
    the t approximation with the design's standard error.
    ``"randomization"``: the paired sign-flip test (its null spread
    grows with the effect). ``"exact_binomial"``: 0/1 scores without
    groups, with its discreteness.
practical_threshold : float, default 0.0
    Plan for the interval's decision beyond a practical threshold (its
    low end above it: ``superior_ci``), the bootstrap interval only."""

_SENSITIVITY = """\
lower, upper : float, optional
    The worst and best possible score (in score units). Binary 0/1
    scores default to 0 and 1; other scores need both, and every
    observed score must lie between them. Prediction mode: the worst
    and best predictions give probability 0 and 1 to the true class;
    regression needs ``lower`` and ``upper`` (the range of predictions).
confidence_level : float, default 0.95
    Level of the Imbens-Manski interval and of the verdicts.
rng : int, numpy.random.Generator or None
    Prediction mode: the seed of the paired bootstrap (2,000 resamples)
    that gives each end's standard error. Score mode: checked and
    recorded only (the standard errors are the analysis' own sandwich
    ones, over its units and within its strata)."""

_DELONG = """\
alternative : {"two-sided", "greater", "less"}
    ``"greater"``: AUROC of A > AUROC of B.
confidence_level : float, default 0.95
    Level of the Wald interval of the AUROC difference (one-sided, with
    an infinite end, for a one-sided alternative)."""

_AUDIT = f"""\
methods : sequence of str, optional
    Interval methods to audit; None (default): every method valid for the
    design -- ``"percentile"``, ``"basic"``, ``"bca"``, ``"studentized"``,
    and for 0/1 scores on independent cases ``"tango"`` and
    ``"newcombe"`` -- which includes the one ``method="auto"`` chooses.
    ``"calibrated"`` only when named (a double bootstrap inside each
    simulation is costly); ``"auto"`` names the method it chooses.
n_simulations : int, default 400
    Outer resamples of the design. The Monte Carlo standard error of a
    coverage near 0.95 is about ``0.22 / sqrt(n_simulations)`` (0.011 at
    400).
n_resamples : int, default 999
    Replicates of each interval on each outer resample (and
    permutations of each test).
confidence_level : float, default 0.95
    Nominal coverage of the intervals; tests reject at
    ``1 - confidence_level``.
tests : bool, default True
    Also estimate the size of the randomization test (and for 0/1 scores
    of the exact binomial test) on null outer resamples.
{_RNG}
{_UNIT}
stratified : bool, optional
    Resample within strata (default when a stratum column is set).
{_STRATUM_WEIGHTS}"""

_AUDIT_DOC = """\
A simulation in the world of the observed data: the observed units
are the population and the observed improvement is the truth. Each
of ``n_simulations`` outer resamples is drawn with the design of
``bootstrap`` (cases or whole groups, within strata, with the
strata's weights); every candidate interval is computed on it with
``n_resamples`` replicates, and a method's coverage is the share of
outer resamples whose interval covers the observed improvement. For
the tests, the outer resamples come from a world where the null
holds (each unit's difference centred on its stratum's mean; for 0/1
scores each discordant pair won by either model with probability
1/2) and the size is the share where the test rejects. The inner
replicates of an outer resample are drawn once and read by every
bootstrap method.

The audit estimates the coverage a method has when the population
is the observed data (a plug-in estimate). With few cases of a
skewed population, whose sample is usually less skewed than the
population, it leans towards the nominal level: read a coverage
below the nominal level as a warning, and one at the nominal level
as "no problem seen at this size".

Designs it cannot simulate raise ``ValueError`` saying why: a
corpus metric or a metric of predictions, repeated runs per case,
the Dask Poisson bootstrap of continuous scores (use
``collect=True``); so does a method not valid for the design."""

#: Every block, by the name a docstring uses for it (``${name}``).
BLOCKS: dict[str, str] = {
    "columns_params": _COLUMNS,
    "compare_params": _COMPARE,
    "bootstrap_params": _BOOTSTRAP,
    "randomization_params": _RANDOMIZATION,
    "exact_binomial_params": _EXACT_BINOMIAL,
    "slice_columns_param": _SLICE_COLUMNS,
    "by_slice_params": _BY_SLICE,
    "report_params": _REPORT,
    "report_inputs_param": _REPORT_INPUTS,
    "collect_param": _COLLECT,
    "pass_params": _PASS,
    "progress_param": _PROGRESS,
    "repeats_param": _REPEATS,
    "factors_param": _FACTORS,
    "sequential_params": _SEQUENTIAL,
    "compare_options": _COMPARE.split("\n", 2)[2],
    "multi_params": _MULTI,
    "plan_params": _PLAN,
    "sensitivity_params": _SENSITIVITY,
    "delong_params": _DELONG,
    "audit_params": _AUDIT,
    "audit_doc": _AUDIT_DOC,
}


def compose(func: F) -> F:
    """Substitute the parameter blocks named in ``func``'s docstring (``${name}``).

    The docstring is dedented (``inspect.cleandoc``) before substitution; an
    unknown block name is an error at import time, not a hole in the docs.
    """
    if func.__doc__ is not None:
        func.__doc__ = Template(inspect.cleandoc(func.__doc__)).substitute(BLOCKS)
    return func
