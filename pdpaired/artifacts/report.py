"""The declared analysis in one call, and its verifiable artifacts.

``cmp.report(...)`` runs the paired bootstrap, the randomization test, the
exact binomial test (binary outcomes), the slices and the decisions, each
on its own stream of the user's seed (``report:bootstrap``,
``report:randomization``, ``report:slices``), and returns a
:class:`ComparisonReport`. ``report.save(dir)`` writes three files
atomically:

* ``comparison.json`` -- the local artifact: everything, plus the input
  provenance (file paths and SHA-256, or a digest of the canonical in-memory
  table), the digest of the aligned id set, the design and the seeds;
* ``comparison.shareable.json`` -- aggregates only: no case ids, targets,
  predictions, paths or row-level data;
* ``comparison.md`` -- a human-readable report.

Both JSON files follow the bundled JSON Schema ``paired-comparison-artifact/v1``
(Draft 2020-12) of protocol ``paired-comparison/v1`` and carry a ``digest``:
the SHA-256 of the canonical JSON of every other field. :func:`verify`
checks the schema, the digest and the internal consistency -- of these and
of the ``paired-comparison-artifact/v2`` artifacts of several models
(:mod:`pdpaired.artifacts.multi`).
"""

from __future__ import annotations

import hashlib
import html
import json
import math
import os
import platform
import re
import tempfile
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from pdpaired._lib.errors import ArtifactError
from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.format import jsonable as _jsonable
from pdpaired._lib.format import level_text as _level
from pdpaired._lib.format import md_escape as _md
from pdpaired._lib.rng import derived_seed, normalize_rng, stream_name
from pdpaired.artifacts.checks import close as _close
from pdpaired.artifacts.checks import comparison_problems
from pdpaired.results.gate import GateResult
from pdpaired.results.gate import gate as apply_gate
from pdpaired.artifacts.multi import (
    SCHEMA_FILE_V2,
    bootstrap_fields,
    is_multi_artifact,
    multi_consistency,
)
from pdpaired.results.bootstrap import BootstrapResult
from pdpaired.results.exact_binomial import ExactBinomialResult
from pdpaired.results.randomization import RandomizationResult
from pdpaired.results.verified import VerifiedArtifact
from pdpaired.results.sensitivity import SensitivityResult, sensitivity_problems
from pdpaired.results.slices import SliceResult, as_part, slice_label

if TYPE_CHECKING:
    from pdpaired.analysis.comparison import Comparison

__all__ = ["ARTIFACT", "PROTOCOL", "ComparisonReport", "build_report", "verify"]

PROTOCOL = "paired-comparison/v1"
ARTIFACT = "paired-comparison-artifact/v1"
SCHEMA_FILE = "paired-comparison-artifact-v1.json"
#: The shareable artifact never shows a slice of fewer cases than this (nor below min_size):
#: its label and numbers are suppressed (with the smallest other slices of its column until
#: the hidden ones hold this many cases), so slicing by an id column cannot leak per-case data.
SHAREABLE_MIN_SLICE = 10
#: ``verify`` reads at most this many bytes of a file: an artifact holds aggregates only
#: (a few kilobytes; a thousand slices are about 300 kB).
MAX_ARTIFACT_BYTES = 16 * 2**20
#: ... and refuses JSON nested deeper than this (an artifact nests 4 levels), before parsing.
MAX_ARTIFACT_DEPTH = 32
#: Integers longer than this are beyond float range (the checks compute in floats).
_MAX_INT_DIGITS = 308
_MAX_PROBLEMS_SHOWN = 20
_MAX_PROBLEM_CHARS = 500
#: A JSON string token; one without its closing quote runs to the end of the text.
_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")


# --------------------------------------------------------------------------- digests
def canonical_json(obj: Any) -> str:
    """Canonical JSON: sorted keys, no spaces, no NaN (what the digest hashes)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)  # fmt: skip


def content_digest(artifact: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of every field except ``digest``."""
    body = {k: v for k, v in artifact.items() if k != "digest"}
    return hashlib.sha256(canonical_json(body).encode()).hexdigest()


def file_sha256(path: str | os.PathLike[str]) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def frame_sha256(frame: pd.DataFrame) -> str:
    """SHA-256 of a table's CSV text (floats with 17 significant digits).

    ``report()`` applies it to the aligned pairs (``Comparison.pairs``: one
    row per case, sorted by case id), so the digest does not depend on the
    input's row order.
    """
    text = frame.to_csv(lineterminator="\n", float_format="%.17g")
    return hashlib.sha256(text.encode()).hexdigest()


def ids_sha256(ids: pd.Index) -> str:
    """SHA-256 of the sorted aligned case ids (one ``repr`` per line)."""
    text = "\n".join(repr(x.item() if isinstance(x, np.generic) else x) for x in ids)
    return hashlib.sha256(text.encode()).hexdigest()


def software_versions() -> dict[str, str]:
    """Versions of pdpaired, Python, NumPy, pandas and SciPy (an artifact's ``software``)."""
    return _software()


def _software() -> dict[str, str]:
    import scipy

    from pdpaired._version import __version__

    return {
        "pdpaired": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "scipy": scipy.__version__,
    }


# --------------------------------------------------------------------------- report
@dataclass(frozen=True, slots=True, kw_only=True)
class ComparisonReport:
    """The declared analysis of one comparison, ready to be saved and shared.

    Attributes
    ----------
    bootstrap : BootstrapResult
    randomization : RandomizationResult or None
        None when ``n_permutations=0`` skipped the test.
    exact_binomial : ExactBinomialResult or None
        With binary outcomes only (0/1 scores, or ``metric="accuracy"``).
    slices : SliceResult or None
    task : str
        ``"score"``, ``"binary"``, ``"multiclass"`` or ``"regression"``.
    threshold : float or None
        The probability threshold of binary label metrics (accuracy, F1).
    class_labels : list or None
        The class labels of a classification task (local artifact only:
        they are target values).
    seed : int or None
        The seed the user gave (or drew); every part records it too, with the
        name of its stream. The same ``report()`` call with ``rng=seed``
        reproduces every part.
    inputs : list of dict
        Provenance: ``{"path", "sha256"}`` per input file, or one
        ``{"in_memory_table_sha256"}`` (the SHA-256 of ``frame_sha256`` of the
        aligned pairs) when the table was not read from files.
    id_digest : str
        SHA-256 of the aligned, sorted case ids.
    software : dict
        Versions of pdpaired, Python, NumPy, pandas, SciPy.
    sensitivity : SensitivityResult or None
        When outcomes are missing: what they could change (the identified
        set of the improvement, the Imbens-Manski interval, the tipping
        point; :meth:`Comparison.sensitivity`, on the stream
        ``"report:sensitivity"``). None without missing outcomes, or when
        the scores are neither 0/1 nor bounded by ``score_range``.
    sensitivity_note : str or None
        Why the sensitivity was not computed although outcomes are missing.
    """

    bootstrap: BootstrapResult
    randomization: RandomizationResult | None
    exact_binomial: ExactBinomialResult | None
    slices: SliceResult | None
    task: str
    threshold: float | None
    class_labels: list[Any] | None = field(compare=False)
    seed: int | None
    inputs: list[dict[str, str]] = field(compare=False)
    id_digest: str
    software: dict[str, str] = field(compare=False)
    sensitivity: SensitivityResult | None = None
    sensitivity_note: str | None = field(default=None, compare=False)

    # -- artifacts -------------------------------------------------------------
    def to_artifact(self, kind: str = "local") -> dict[str, Any]:
        """Return the artifact dict (``"local"`` or ``"shareable"``), digest included."""
        if kind not in ("local", "shareable"):
            msg = f"`kind` must be 'local' or 'shareable'; got {kind!r}."
            raise ValueError(msg)
        bs, rz, eb = self.bootstrap, self.randomization, self.exact_binomial
        art: dict[str, Any] = {
            "protocol": PROTOCOL,
            "artifact": ARTIFACT,
            "kind": kind,
            "metric": {
                "name": bs.metric,
                "higher_is_better": bs.higher_is_better,
                "task": self.task,
                "threshold": self.threshold,
            },
            "randomization": None
            if rz is None
            else {
                "statistic": rz.statistic,
                "pvalue": rz.pvalue,
                "pvalue_se": rz.pvalue_se,
                "alternative": rz.alternative,
                "n_permutations": rz.n_permutations,
                "exact": rz.exact,
                "unit": rz.unit,
                "seed": rz.seed,
                "stream": rz.stream,
            },
            "exact_binomial": None
            if eb is None
            else {
                "a_only": eb.a_only,
                "b_only": eb.b_only,
                "both_pass": eb.both_pass,
                "both_fail": eb.both_fail,
                "pvalue": eb.pvalue,
                "alternative": eb.alternative,
                "mid_p": eb.mid_p,
            },
            "slices": None if self.slices is None else _slice_block(self.slices, kind),
            "software": dict(self.software),
            **bootstrap_fields(bs),
        }
        if self.sensitivity is not None:  # optional: only when outcomes are missing
            art["sensitivity"] = self.sensitivity.artifact_block()
        if kind == "local":
            art["local"] = {
                "inputs": [dict(x) for x in self.inputs],
                "aligned_ids_sha256": self.id_digest,
                "seed": self.seed,
                "stratum_weights": bs.stratum_weights,
                "class_labels": self.class_labels,
            }
        art = _jsonable(art)
        art["digest"] = content_digest(art)
        return art

    def to_markdown(self) -> str:
        """Return the human-readable report (``comparison.md``)."""
        return _markdown(self)

    def save(self, directory: str | os.PathLike[str]) -> dict[str, Path]:
        """Write ``comparison.json``, ``comparison.shareable.json`` and ``comparison.md``.

        Every file is first written to a temporary file in ``directory`` and
        then renamed, so a reader never sees a half-written artifact; nothing
        is renamed unless all three were written, and if a rename fails the
        files already replaced are rolled back, so the directory holds either
        the old set or the new one.

        Returns
        -------
        dict
            ``{"local": path, "shareable": path, "markdown": path}``.
        """
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        texts = {
            "local": (out / "comparison.json", _dump(self.to_artifact("local"))),
            "shareable": (out / "comparison.shareable.json", _dump(self.to_artifact("shareable"))),
            "markdown": (out / "comparison.md", self.to_markdown()),
        }
        write_files(out, list(texts.values()))
        return {k: v[0] for k, v in texts.items()}

    # -- views -------------------------------------------------------------------
    def __str__(self) -> str:
        blocks = [self.bootstrap, self.randomization, self.exact_binomial]
        shown = [r for r in blocks if r is not None]
        width = max(r.key_width() for r in shown)  # the parts' labels line up
        parts = "\n\n".join(r.text(width) for r in shown).split("\n")
        if self.randomization is None:
            parts += ["", "Randomization test skipped (n_permutations=0)."]
        if self.slices is not None:
            parts += ["", str(self.slices)]
        if self.sensitivity is not None:
            parts += ["", str(self.sensitivity)]
        elif self.sensitivity_note is not None:
            parts += ["", f"Missing-outcome sensitivity {self.sensitivity_note}."]
        return "\n".join(parts)

    def __repr__(self) -> str:
        bs, rz = self.bootstrap, self.randomization
        return (
            f"ComparisonReport(a={bs.a!r}, b={bs.b!r}, metric={bs.metric!r}, "
            f"improvement={bs.improvement:.6g}, verdict={bs.verdict!r}, "
            f"pvalue={'None' if rz is None else format(rz.pvalue, '.4g')}, "
            f"slices={self.slices is not None}, seed={self.seed!r})"
        )

    def _repr_html_(self) -> str:
        parts = [self.bootstrap._repr_html_()]
        if self.randomization is not None:
            parts.append(self.randomization._repr_html_())
        if self.exact_binomial is not None:
            parts.append(self.exact_binomial._repr_html_())
        if self.slices is not None:
            parts.append(self.slices._repr_html_())
        if self.sensitivity is not None:
            parts.append(self.sensitivity._repr_html_())
        elif self.sensitivity_note is not None:
            note = html.escape(self.sensitivity_note)
            parts.append(f"<p>Missing-outcome sensitivity {note}.</p>")
        caption = html.escape(f"Comparison report: {self.bootstrap.a} vs {self.bootstrap.b}")
        return f"<div class='pdpaired-report'><h4>{caption}</h4>{''.join(parts)}</div>"

    def to_dict(self) -> dict[str, Any]:
        """Return the local artifact as a JSON-safe dict."""
        return self.to_artifact("local")

    def to_frame(self) -> pd.DataFrame:
        """Return a one-row tidy summary (estimate, interval, p-values, decisions)."""
        bs, rz, eb = self.bootstrap, self.randomization, self.exact_binomial
        row = bs.to_frame().iloc[0].to_dict()
        row["randomization_pvalue"] = None if rz is None else rz.pvalue
        row["exact_binomial_pvalue"] = None if eb is None else eb.pvalue
        row["task"] = self.task
        return pd.DataFrame([row])

    # -- release gate ----------------------------------------------------------
    def gate(self, fail_on: str) -> GateResult:
        """Apply a release gate: exit code 1 when the verdict meets ``fail_on``, else 0.

        Parameters
        ----------
        fail_on : {"b-better", "not-a-better", "not-noninferior"}
            ``"b-better"`` fails when B is better (the whole interval below
            ``-practical_threshold``); ``"not-a-better"`` fails unless A is
            better (the whole interval above ``practical_threshold``);
            ``"not-noninferior"`` fails unless noninferiority is shown (needs
            ``noninferiority_margin``).

        Returns
        -------
        GateResult
            ``exit_code`` (1 fail, 0 pass), ``failed``, ``verdict``, ``reason``;
            what ``pdpaired compare ... --fail-on`` exits with.

        Examples
        --------
        >>> from pdpaired.datasets import load_digits_cv
        >>> rep = load_digits_cv().paired(score="correct").compare(
        ...     "logreg", "knn", higher_is_better=True).report(
        ...     n_resamples=1000, n_permutations=1000, rng=0)
        >>> g = rep.gate("not-a-better")
        >>> g.exit_code, g.verdict
        (1, 'b_better')
        """
        return apply_gate(self, fail_on)


def write_files(out: Path, texts: list[tuple[Path, str]]) -> None:
    """Write ``(path, text)`` files in ``out`` atomically, all or none.

    Each file is first written to a temporary file in ``out`` and then
    renamed, so a reader never sees a half-written artifact; nothing is
    renamed unless all were written, and if a rename fails the files
    already replaced are rolled back, so ``out`` holds either the old set
    or the new one.
    """
    staged: list[tuple[str, Path]] = []
    backups: list[tuple[str, Path]] = []
    placed: list[Path] = []
    try:
        for target, text in texts:
            fd, tmp = tempfile.mkstemp(dir=out, prefix=f".{target.name}.", suffix=".tmp")
            staged.append((tmp, target))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o644)  # mkstemp makes it private; artifacts are for reading
        try:
            for tmp, target in staged:
                if target.exists() and not target.is_dir():  # keep the old one until done
                    fd, bak = tempfile.mkstemp(dir=out, prefix=f".{target.name}.", suffix=".old")
                    os.close(fd)
                    os.replace(target, bak)
                    backups.append((bak, target))
                os.replace(tmp, target)
                placed.append(target)
        except BaseException:
            for target in placed:  # roll back: the old set, not a mix
                target.unlink(missing_ok=True)
            for bak, target in backups:
                os.replace(bak, target)
            backups.clear()
            raise
    finally:
        for tmp, _ in staged + backups:
            if os.path.exists(tmp):
                os.unlink(tmp)


def _dump(artifact: dict[str, Any]) -> str:
    return (
        json.dumps(artifact, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    )


def _suppressed(table: pd.DataFrame, smallest: int) -> set[int]:
    """Rows hidden from the shareable artifact.

    Every slice below ``smallest`` cases, and per column, while the hidden
    slices together hold fewer than ``smallest`` cases, the smallest shown
    slice too: otherwise the overall metric minus the shown slices would
    reveal a hidden slice by subtraction.
    """
    hidden: set[int] = set()
    for _, sub in table.groupby("column", sort=False):
        sizes = sub["n"].astype(int)
        small = set(sizes.index[sizes < smallest])
        shown = sizes.drop(index=list(small)).sort_values(kind="stable")
        while small and sum(int(sizes[i]) for i in small) < smallest and len(shown):
            small.add(shown.index[0])
            shown = shown.iloc[1:]
        hidden |= small
    return hidden


def _slice_block(res: SliceResult, kind: str) -> dict[str, Any]:
    rows = []
    smallest = max(res.min_size, SHAREABLE_MIN_SLICE)
    hidden = _suppressed(res.table, smallest) if kind == "shareable" else set()
    for i, r in zip(res.table.index, res.table.to_dict(orient="records"), strict=True):
        if i in hidden:
            row_s: dict[str, Any] = dict.fromkeys(("metric_a", "metric_b", "improvement", "winner"))
            row_s.update(column=str(r["column"]), value="(suppressed)", n=int(r["n"]),
                         status="suppressed")  # fmt: skip
            if res.uncertainty:
                row_s.update(dict.fromkeys(("ci_low", "ci_high", "pvalue", "pvalue_adjusted",
                                            "verdict")))  # fmt: skip
            rows.append(row_s)
            continue
        row = {
            "column": str(r["column"]),
            "value": slice_label(r["value"]),
            "n": int(r["n"]),
            "status": str(r["status"]),
            "metric_a": r["metric_a"],
            "metric_b": r["metric_b"],
            "improvement": r["improvement"],
            "winner": None if r["winner"] is pd.NA else r["winner"],
        }
        if res.uncertainty:
            row.update(ci_low=r["ci_low"], ci_high=r["ci_high"], pvalue=r["pvalue"],
                       pvalue_adjusted=r["pvalue_adjusted"],
                       verdict=_text_or_none(r["verdict"]))  # fmt: skip
        rows.append(row)
    # Cochran's Q of a column is computed from every reported slice: with one of them
    # suppressed, it would be one more equation in the hidden slices' effects
    leaky = {str(res.table.loc[i, "column"]) for i in hidden
             if res.table.loc[i, "status"] == "reported"}  # fmt: skip
    return {
        "columns": list(res.columns),
        "min_size": res.min_size,
        "uncertainty": res.uncertainty,
        "adjust": res.adjust,
        "rows": rows,
        "heterogeneity": {c: h for c, h in res.heterogeneity.items() if c not in leaky},
    }


# --------------------------------------------------------------------------- building
def build_report(
    cmp: Comparison,
    *,
    n_resamples: int,
    n_permutations: int,
    slices: list[str] | None,
    min_slice_size: int,
    slice_uncertainty: bool,
    practical_threshold: float,
    noninferiority_margin: float | None,
    confidence_level: float,
    method: str,
    alternative: str,
    rng: int | np.random.Generator | None,
    unit: str | None,
    weighting: str,
    inputs: list[dict[str, str]] | None,
    table: pd.DataFrame,
    binary_outcomes: bool,
    grouped: bool,
    score_range: Any = None,
) -> ComparisonReport:
    """Run the declared analysis (see ``Comparison.report``).

    ``table`` is the comparison's canonical per-case table (digested as the
    in-memory input), ``binary_outcomes`` whether its outcomes are pass/fail
    and ``grouped`` whether its cases are clustered: the comparison hands
    them in, so this module needs nothing of its internals.
    """
    if n_permutations == 0 and slices and slice_uncertainty:
        msg = (
            "`n_permutations=0` skips the randomization test, but `slice_uncertainty=True` "
            "needs the slices' p-values: give n_permutations > 0."
        )
        raise ValueError(msg)
    score_range = _check_score_range(score_range)
    seed = normalize_rng(rng)
    root = seed.seed_sequence
    # each part runs on its own stream of the registry, seeded by an internal derived
    # seed; the parts then record the user's seed and the name of their stream
    s_boot = derived_seed(root, "report_bootstrap")
    s_rand = derived_seed(root, "report_randomization")
    s_slices = derived_seed(root, "report_slices")
    bs = cmp.bootstrap(
        n_resamples=n_resamples, confidence_level=confidence_level, method=method, rng=s_boot,
        unit=unit, weighting=weighting, practical_threshold=practical_threshold,
        noninferiority_margin=noninferiority_margin,
    )  # fmt: skip
    bs = replace(bs, seed=seed.seed, rng_state=seed.rng_state,
                 stream=stream_name("report_bootstrap"))  # fmt: skip
    rz = None  # n_permutations=0 skips the test
    if n_permutations:
        rz = cmp.randomization(n_permutations=n_permutations, alternative=alternative,
                               rng=s_rand, unit=unit, weighting=weighting)  # fmt: skip
        rz = replace(rz, seed=seed.seed, rng_state=seed.rng_state,
                     stream=stream_name("report_randomization"))  # fmt: skip
    eb = None
    # the exact binomial test assumes independent pairs: not run on grouped cases
    # (the randomization test with whole-group swaps is the valid test there)
    if binary_outcomes and not grouped:
        eb = cmp.exact_binomial(alternative=alternative, confidence_level=confidence_level)
    sl = None
    if slices:
        sl = cmp.by_slice(
            slices, min_size=min_slice_size, uncertainty=slice_uncertainty,
            n_resamples=n_resamples, n_permutations=n_permutations or n_resamples, rng=s_slices,
            confidence_level=confidence_level, practical_threshold=practical_threshold,
            unit=unit, weighting=weighting,
        )  # fmt: skip
        sl = as_part(sl, "report", seed.seed, seed.rng_state)
    sens, note = None, None
    if cmp.missing.n_missing_a or cmp.missing.n_missing_b:
        bounded = binary_outcomes if cmp.task == "score" else cmp.task != "regression"
        if cmp.runs is not None:
            note = (
                "not computed: the comparison averages repeated runs, and the bounds are "
                "not available for run means yet (Comparison.sensitivity)"
            )
        elif score_range is None and not bounded:
            note = (
                "not computed: the scores are neither 0/1 nor bounded; give their range "
                "(score_range=(lower, upper); CLI: --score-range LOWER UPPER)"
            )
        else:
            lower, upper = (None, None) if score_range is None else score_range
            sens = cmp.sensitivity(lower=lower, upper=upper, confidence_level=confidence_level,
                                   rng=derived_seed(root, "report_sensitivity"))  # fmt: skip
            sens = replace(sens, seed=seed.seed, stream=stream_name("report_sensitivity"))
    if inputs is None:  # the canonical table: the aligned pairs, sorted by case id
        inputs = [{"in_memory_table_sha256": frame_sha256(table)}]
    return ComparisonReport(
        bootstrap=bs,
        randomization=rz,
        exact_binomial=eb,
        slices=sl,
        task=cmp.task,
        threshold=cmp.threshold,  # binary label metrics only
        class_labels=cmp.class_labels,
        seed=seed.seed,
        inputs=inputs,
        id_digest=ids_sha256(table.index),
        software=_software(),
        sensitivity=sens,
        sensitivity_note=note,
    )


def _check_score_range(score_range: Any) -> tuple[float, float] | None:
    """``score_range``: None or two numbers ``(lower, upper)`` (their order checked later)."""
    if score_range is None:
        return None
    if isinstance(score_range, (str, bytes)) or not hasattr(score_range, "__len__"):
        msg = f"`score_range` must be (lower, upper), two numbers; got {score_range!r}."
        raise TypeError(msg)
    if len(score_range) != 2:
        msg = f"`score_range` must be (lower, upper), two numbers; got {len(score_range)} values."
        raise ValueError(msg)
    lower, upper = score_range
    return lower, upper


# --------------------------------------------------------------------------- markdown
def _mc_rows(bs: Any) -> list[str]:
    """Markdown rows on the interval's Monte Carlo error and the exact-test check."""
    rows = []
    se = bs.confidence_interval_se
    if se is not None:
        stable = (
            ""
            if bs.decision_stable
            else (
                "; **a decision threshold is within 2 MC SE of its endpoint: another seed could "
                "flip it** (use more resamples)"
            )
        )
        rows.append(f"| Monte Carlo error of the endpoints | +/-{se.low:.2g} (low), "
                    f"+/-{se.high:.2g} (high){stable} |")  # fmt: skip
    if bs.exact_check is not None:
        rows.append(f"| exact test check | {bs.exact_check} |")
    return rows


def _markdown(rep: ComparisonReport) -> str:
    bs, rz, eb = rep.bootstrap, rep.randomization, rep.exact_binomial

    # the labels from the data (model and metric names), escaped once for every line below
    def escaped(res: Any) -> Any:
        score = res.score_column
        return replace(
            res, a=_md(res.a), b=_md(res.b), metric=_md(res.metric),
            score_column=None if score is None else _md(score),
        )  # fmt: skip

    bs = escaped(bs)
    rz = None if rz is None else escaped(rz)
    ci = bs.confidence_interval
    arrow = "higher is better" if bs.higher_is_better else "lower is better"
    lvl = _level(bs.confidence_level)
    verdict = bs.headline(strong="**")
    if bs.noninferior is not None:
        verdict += (
            f" Noninferiority (margin {bs.noninferiority_margin:g}): "
            f"{'shown' if bs.noninferior else 'not shown'}."
        )
    lines = [
        f"# Paired comparison: {bs.a} vs {bs.b}",
        "",
        verdict,
        "",
        "| quantity | value |",
        "|---|---|",
        f"| metric | {bs.metric_label} ({arrow}; task: {rep.task}) |",
        f"| {bs.a} (A) | {_fmt(bs.metric_a, digits=6)} |",
        f"| {bs.b} (B) | {_fmt(bs.metric_b, digits=6)} |",
        f"| raw difference A - B | {_fmt(bs.raw_delta, True, 6)} |",
        f"| improvement of A over B | {_fmt(bs.improvement, True, 6)} |",
        f"| {lvl} paired interval | [{_fmt(ci.low, True, 6)}, {_fmt(ci.high, True, 6)}] "
        f"({bs.method}, {bs.n_resamples} resamples, {bs.n_valid} valid, seed {bs.seed}, "
        f"stream {bs.stream}) |",
        *_mc_rows(bs),
        "| randomization test | skipped (n_permutations=0) |"
        if rz is None
        else f"| randomization test | p = {rz.pvalue:.4g} ({rz.alternative}, "
        f"{rz.n_permutations} {'assignments, exact' if rz.exact else 'permutations'}, "
        f"{rz.unit} swaps, seed {rz.seed}, stream {rz.stream}) |",
    ]
    if bs.metric == "auroc":
        lines.append(
            "| which AUROC test | the randomization test's null is *interchangeable "
            "rankings*; for *equal AUROC* (whatever the ROC shapes) run DeLong's test, "
            "`cmp.delong()` |"
        )
    if eb is not None:
        lines.append(
            f"| exact binomial test | p = {eb.pvalue:.4g} (A only {eb.a_only}, B only "
            f"{eb.b_only}, both pass {eb.both_pass}, both fail {eb.both_fail}) |"
        )
    lines += [
        f"| cases | {bs.n_cases} ({bs.missing.describe()}) |",
        f"| design | {bs.sampling}, resampling unit {bs.unit}"
        + (f", {bs.n_groups} groups" if bs.n_groups is not None else "")
        + (f", {bs.n_strata} strata" if bs.n_strata is not None else "")
        + " |",
        "",
    ]
    if rep.slices is not None:
        sl = rep.slices
        head = "| slice | n | status | A | B | improvement | winner |"
        rule = "|---|---:|---|---:|---:|---:|---|"
        if sl.uncertainty:
            head, rule = head + " CI | adjusted p | verdict |", rule + "---|---:|---|"
        lines += ["## Slices", "", head, rule]
        for r in sl.table.to_dict(orient="records"):
            row = (
                f"| {_md(r['column'])} = {_md(slice_label(r['value']))} | {r['n']} | "
                f"{r['status']} | "
                f"{_fmt(_num(r['metric_a']))} | {_fmt(_num(r['metric_b']))} | "
                f"{_fmt(_num(r['improvement']), True)} | "
                f"{'' if r['winner'] is pd.NA else r['winner']} |"
            )
            if sl.uncertainty:
                row += (
                    f" [{_fmt(_num(r['ci_low']), True)}, {_fmt(_num(r['ci_high']), True)}] | "
                    f"{_fmt(_num(r['pvalue_adjusted']))} | "
                    f"{_text_or_none(r['verdict']) or ''} |"
                )
            lines.append(row)
        lines += ["", "Slice scans are exploratory: treat a slice effect as a lead to test on new "
                  "data, not as a finding.", ""]  # fmt: skip
    if rep.sensitivity is not None:
        lines += [rep.sensitivity.to_markdown()]
    elif rep.sensitivity_note is not None:
        lines += [f"Missing-outcome sensitivity {_md(rep.sensitivity_note)}.", ""]
    lines += [
        "## What the interval covers, and what it does not",
        "",
        f"- It covers the sampling variation of these {bs.n_cases} evaluation cases"
        + (" (resampled as whole groups)" if bs.unit == "group" else "")
        + ", with both models scored on the same cases.",
        "- It does not cover a change of population or deployment conditions, the "
        "variation between training runs or seeds of either model, label noise in the "
        "targets, or the selection of this comparison among many (best-of-many prompts, "
        "repeated looks at the data).",
        "- A small p-value is not a large effect: read the size of the improvement and "
        "the practical threshold.",
        "",
        f"Protocol {PROTOCOL}; artifact {ARTIFACT}; pdpaired {rep.software.get('pdpaired')}.",
        "",
    ]
    return "\n".join(lines)


def _text_or_none(x: Any) -> str | None:
    """Return a table cell as text; None when missing (``to_dict`` gives None or ``pd.NA``)."""
    return None if x is None or x is pd.NA else str(x)


def _num(x: Any) -> float | None:
    if x is None or x is pd.NA:
        return None
    f = float(x)
    return None if math.isnan(f) else f


# --------------------------------------------------------------------------- verify
def _schema(name: str = SCHEMA_FILE) -> dict[str, Any]:
    text = resources.files("pdpaired.schemas").joinpath(name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def verify(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Check a comparison artifact: schema, digest and internal consistency.

    Both versions are checked: ``paired-comparison-artifact/v1`` (two
    models, :meth:`ComparisonReport.save`) and ``v2`` (several models,
    :meth:`pdpaired.MultiResult.save`), each against its bundled schema --
    chosen by what the artifact holds (a ``comparisons`` list or not), so
    one relabelled as the other version fails -- and its own consistency
    checks (see :func:`pdpaired.artifacts.multi.multi_consistency`).

    Parameters
    ----------
    path : str or path-like
        ``comparison.json`` or ``comparison.shareable.json``.

    Returns
    -------
    VerifiedArtifact
        The artifact (a dict), when every check passes; its repr is a
        one-line summary, not the whole artifact.

    Raises
    ------
    ArtifactError
        Whatever the file holds, this is the only exception: the file is
        untrusted. It is read up to ``MAX_ARTIFACT_BYTES`` (16 MiB) and its
        nesting checked (at most ``MAX_ARTIFACT_DEPTH``, 32 levels) before
        it is parsed; numbers beyond float range, ``NaN``, a key twice in one
        object and text that is not UTF-8 are refused. The error names every
        problem found (also in ``.problems``): not JSON, schema
        violations (a wrong protocol or artifact version included), a digest
        that does not match the content, an improvement that does not follow
        from the metrics and the direction, a raw delta that is not A - B,
        decisions that do not follow from the thresholds and the interval,
        counts that do not add up, p-values outside (0, 1], parts that
        record different seeds (artifacts that name their streams record
        the report's one seed in each part).

    Examples
    --------
    >>> import tempfile, pdpaired
    >>> from pdpaired.datasets import load_digits_cv
    >>> cmp = load_digits_cv().paired(score="correct").compare(
    ...     "knn", "logreg", higher_is_better=True)
    >>> rep = cmp.report(n_resamples=1000, n_permutations=1000, rng=0)
    >>> paths = rep.save(tempfile.mkdtemp())
    >>> pdpaired.verify(paths["shareable"])["kind"]
    'shareable'
    """
    from jsonschema import Draft202012Validator

    art = _load_untrusted_json(path)
    problems: list[str] = []
    if not isinstance(art, dict):
        msg = f"Artifact {os.fspath(path)!r} must be a JSON object; got {type(art).__name__}."
        raise ArtifactError(msg)
    # the schema of what the artifact holds: several comparisons (v2) or one (v1), so an
    # artifact that names the other version is refused by the schema of its shape
    several = is_multi_artifact(art)
    validator = Draft202012Validator(_schema(SCHEMA_FILE_V2 if several else SCHEMA_FILE))
    for issue in sorted(validator.iter_errors(art), key=lambda e: list(e.absolute_path)):
        where = "/".join(map(str, issue.absolute_path)) or "(top level)"
        problems.append(f"schema: {where}: {_clip(issue.message)}")
    if problems:  # the consistency checks below assume the schema's shapes
        raise _artifact_error(path, problems)
    try:
        if art["digest"] != content_digest(art):
            problems.append(
                "digest: the SHA-256 of the content does not match `digest` (the artifact was "
                "edited after it was written)"
            )
        problems += multi_consistency(art) if several else _consistency(art)
    except (ArithmeticError, ValueError, TypeError, KeyError) as err:
        # a content the checks cannot even compute with (the parser already refuses
        # numbers beyond float range and text that is not Unicode): still an ArtifactError
        msg = f"Artifact {os.fspath(path)!r} cannot be checked: {type(err).__name__}: {err}."
        raise ArtifactError(_clip(msg)) from err
    if problems:
        raise _artifact_error(path, problems)
    return VerifiedArtifact(art, path=os.fspath(path))


def _clip(text: str, limit: int = _MAX_PROBLEM_CHARS) -> str:
    """Shorten one problem's text (a schema message quotes the offending value whole)."""
    return text if len(text) <= limit else text[: limit - 25] + f"... ({len(text)} characters)"


def _nesting_depth(text: str) -> int:
    """Deepest nesting of ``[``/``{`` in JSON text, brackets inside strings not counted.

    A linear scan, without recursion (the parser recurses once per level): a
    string token runs to its closing quote, or to the end of the text when it
    has none, so no input makes the scan quadratic.
    """
    bare = _JSON_STRING.sub("", text)
    brackets = _NOT_BRACKET.sub("", bare).encode("ascii")
    depth = deepest = 0
    for start in range(0, len(brackets), 1 << 20):  # bounded memory: one chunk at a time
        chunk = np.frombuffer(brackets, dtype=np.uint8, count=min(1 << 20, len(brackets) - start),
                              offset=start)  # fmt: skip
        step = np.where((chunk == 0x5B) | (chunk == 0x7B), 1, -1).astype(np.int64)
        level = depth + np.cumsum(step)
        deepest = max(deepest, int(level.max()))
        depth = int(level[-1])
    return deepest


def _load_untrusted_json(path: str | os.PathLike[str]) -> Any:
    """Read and parse a file that anyone may have written; any failure is an ArtifactError.

    At most ``MAX_ARTIFACT_BYTES`` are read; the text must be UTF-8 JSON
    nested at most ``MAX_ARTIFACT_DEPTH`` levels (checked before parsing),
    with finite numbers (no ``NaN``/``Infinity``, nothing beyond float range)
    and no key twice in an object (two parsers could read different values).
    """
    name = os.fspath(path)
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_ARTIFACT_BYTES + 1)
    except OSError as err:
        msg = f"Cannot read artifact {name!r}: {err.strerror or err}."
        raise ArtifactError(msg) from err
    except ValueError as err:  # e.g. a NUL byte in the path
        msg = f"Cannot read artifact {name!r}: {err}."
        raise ArtifactError(msg) from err
    if len(data) > MAX_ARTIFACT_BYTES:
        msg = (
            f"Artifact {name!r} is larger than {MAX_ARTIFACT_BYTES} bytes: not a comparison "
            "artifact (they hold aggregates only)."
        )
        raise ArtifactError(msg)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        msg = f"Artifact {name!r} is not UTF-8 text (not a JSON artifact): {err}."
        raise ArtifactError(msg) from err
    depth = _nesting_depth(text)
    if depth > MAX_ARTIFACT_DEPTH:
        msg = (
            f"Artifact {name!r} nests arrays and objects {depth} levels deep; a comparison "
            f"artifact nests at most {MAX_ARTIFACT_DEPTH}."
        )
        raise ArtifactError(msg)

    def no_constant(token: str) -> Any:
        msg = f"{token} is not a JSON number"
        raise ValueError(msg)

    def finite_float(token: str) -> float:
        x = float(token)
        if not math.isfinite(x):
            msg = f"number {_clip(token, 40)} is beyond float range"
            raise ValueError(msg)
        return x

    def bounded_int(token: str) -> int:
        digits = len(token.lstrip("-"))
        if digits > _MAX_INT_DIGITS:  # beyond float range (and int() is quadratic in length)
            msg = f"integer of {digits} digits is beyond float range"
            raise ValueError(msg)
        return int(token)

    def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                msg = f"key {_clip(repr(key), 80)} appears twice in one object"
                raise ValueError(msg)
            seen.add(key)
        return dict(pairs)

    try:
        art = json.loads(text, parse_constant=no_constant, parse_float=finite_float,
                         parse_int=bounded_int, object_pairs_hook=unique_keys)  # fmt: skip
    except (ValueError, RecursionError, MemoryError) as err:  # JSONDecodeError is a ValueError
        msg = f"Artifact {name!r} is not valid JSON: {_clip(str(err))}."
        raise ArtifactError(msg) from err
    try:  # the digest hashes UTF-8: a lone surrogate ("\\ud800") is not text
        canonical_json(art).encode("utf-8")
    except UnicodeEncodeError as err:
        msg = f"Artifact {name!r} holds a string that is not valid Unicode: {err.reason}."
        raise ArtifactError(msg) from err
    return art


def _artifact_error(path: str | os.PathLike[str], problems: list[str]) -> ArtifactError:
    shown = problems[:_MAX_PROBLEMS_SHOWN]
    if len(problems) > len(shown):
        shown = [*shown, f"... and {len(problems) - len(shown)} more (see `.problems`)"]
    msg = f"Artifact {os.fspath(path)!r} failed {len(problems)} check(s):\n- " + "\n- ".join(shown)
    err = ArtifactError(msg)
    err.problems = problems  # type: ignore[attr-defined]
    return err


def _consistency(a: dict[str, Any]) -> list[str]:
    hib = a["metric"]["higher_is_better"]
    out = comparison_problems(a, hib)
    imp, iv = a["improvement_a_over_b"], a["interval"]
    rz = a["randomization"] or {}  # null: the test was skipped (n_permutations=0)
    if "stream" in iv or "stream" in rz:  # one seed for the whole report (older: derived seeds)
        seeds = {"interval.seed": iv["seed"]}
        if rz:
            seeds["randomization.seed"] = rz["seed"]
        if "local" in a:
            seeds["local.seed"] = a["local"]["seed"]
        if "sensitivity" in a and a["sensitivity"]["stream"] is not None:
            seeds["sensitivity.seed"] = a["sensitivity"]["seed"]
        if len(set(seeds.values())) > 1:
            shown = ", ".join(f"{k} = {v!r}" for k, v in seeds.items())
            out.append(f"the report's parts must record its one seed; got {shown}")
    if rz and not 0.0 < rz["pvalue"] <= 1.0:
        out.append(f"randomization.pvalue = {rz['pvalue']!r} is not in (0, 1]")
    if rz and not _close(rz["statistic"], imp):
        out.append(f"randomization.statistic {rz['statistic']!r} is not the improvement {imp!r}")
    eb = a["exact_binomial"]
    if eb is not None:
        total = eb["a_only"] + eb["b_only"] + eb["both_pass"] + eb["both_fail"]
        if total != a["n_cases"]:
            out.append(f"exact_binomial counts add up to {total}, not n_cases = {a['n_cases']}")
        # unweighted 0/1 outcomes: the improvement is (a_only - b_only) / n
        plain_mean = iv["n_strata"] is None and iv["weighting"] == "item"
        if plain_mean and total == a["n_cases"] > 0:
            from_counts = (eb["a_only"] - eb["b_only"]) / a["n_cases"]
            if not _close(imp, from_counts):
                out.append(
                    f"exact_binomial counts give an improvement of {from_counts!r} "
                    f"((a_only - b_only) / n_cases), not {imp!r}"
                )
        if not 0.0 < eb["pvalue"] <= 1.0:
            out.append(f"exact_binomial.pvalue = {eb['pvalue']!r} is not in (0, 1]")
    if "sensitivity" in a:  # optional (outcomes missing): its own invariants
        out += sensitivity_problems(a["sensitivity"], a)
    sl = a["slices"]
    if sl is not None:
        for r in sl["rows"]:
            name = f"slice {r['column']} = {r['value']}"
            if r["status"] != "reported":
                continue
            if r["n"] > a["n_cases"]:
                out.append(f"{name}: n = {r['n']} exceeds n_cases")
            sa, sb, si = r["metric_a"], r["metric_b"], r["improvement"]
            if None not in (sa, sb, si):
                w = (sa - sb) if hib else (sb - sa)
                if not _close(si, w):
                    out.append(f"{name}: improvement {si!r} does not follow from its metrics")
                winner = "A" if si > 0 else "B" if si < 0 else "tie"
                if r["winner"] != winner:
                    out.append(f"{name}: winner {r['winner']!r} but the improvement says {winner}")
            for key in ("pvalue", "pvalue_adjusted"):
                p = r.get(key)
                if p is not None and not 0.0 < p <= 1.0:
                    out.append(f"{name}: {key} = {p!r} is not in (0, 1]")
    return out
