"""A comparison artifact that passed verification, as a dict with a one-line summary.

:class:`VerifiedArtifact` is what :func:`pdpaired.verify` returns; the checks
themselves live in :mod:`pdpaired.artifacts`.
"""

from __future__ import annotations

import html
from typing import Any

from pdpaired._lib.format import fmt as _fmt
from pdpaired._lib.public import public

__all__ = ["VerifiedArtifact"]


@public
class VerifiedArtifact(dict[str, Any]):
    """A comparison artifact that passed :func:`pdpaired.verify`: the artifact, as a dict.

    Every field of the artifact is an item (``art["interval"]["low"]``);
    the repr is a one-line summary that fits a screen, not the whole
    artifact. ``path`` is the file that was checked; ``signed_by`` the
    fingerprint (``sha256:...``) of the key whose signature was checked, or
    None when no signature was asked for.

    Examples
    --------
    >>> from pdpaired.results.verified import VerifiedArtifact
    >>> art = VerifiedArtifact({"kind": "shareable", "artifact": "paired-comparison-artifact/v1",
    ...     "models": {"a": "new", "b": "old"}, "metric": {"name": "auroc"}, "n_cases": 300,
    ...     "improvement_a_over_b": 0.0123, "interval": {"low": 0.004, "high": 0.02},
    ...     "decisions": {"verdict": "a_better"}, "digest": "0123456789abcdef"}, path="c.json")
    >>> for part in repr(art).split("; "):
    ...     print(part)
    VerifiedArtifact('c.json': valid shareable paired-comparison-artifact/v1
    new vs old, auroc, 300 cases
    improvement +0.0123 [+0.004, +0.02], verdict a_better
    digest 0123456789ab...)
    >>> art["kind"]
    'shareable'
    """

    def __init__(
        self, artifact: dict[str, Any], *, path: str, signed_by: str | None = None
    ) -> None:
        super().__init__(artifact)
        self.path = path
        self.signed_by = signed_by

    def summary(self) -> str:
        """One line: what the artifact is and what it says."""
        comps = self.get("comparisons")
        if isinstance(comps, list):  # several models (artifact v2): one verdict per comparison
            an = self.get("analysis") or {}
            what = f"against {an.get('baseline')}" if an.get("kind") == "against" else "all pairs"
            verdicts = ", ".join(
                f"{(c.get('models') or {}).get('a')} vs {(c.get('models') or {}).get('b')} "
                f"{(c.get('decisions') or {}).get('verdict')}"
                for c in comps[:5]
                if isinstance(c, dict)
            ) + (", ..." if len(comps) > 5 else "")
            return (
                f"valid {self.get('kind')} {self.get('artifact')}; {len(comps)} comparison(s) "
                f"{what}, {(self.get('metric') or {}).get('name')}; {verdicts}; digest "
                f"{str(self.get('digest'))[:12]}..." + self._signer()
            )
        tasks, pooled = self.get("tasks"), self.get("pooled")
        if isinstance(tasks, list) and isinstance(pooled, dict):  # a suite of tasks
            models = self.get("models") or {}
            rd = pooled.get("random") or {}
            return (
                f"valid {self.get('kind')} {self.get('artifact')}; {models.get('a')} vs "
                f"{models.get('b')}, {(self.get('metric') or {}).get('name')}, {len(tasks)} "
                f"tasks; random effects {_fmt(rd.get('estimate'), True)} "
                f"[{_fmt(rd.get('low'), True)}, {_fmt(rd.get('high'), True)}], tau2 "
                f"{_fmt(pooled.get('tau2'))}, verdict {pooled.get('verdict')}; digest "
                f"{str(self.get('digest'))[:12]}..." + self._signer()
            )
        iv = self.get("interval") or {}
        verdict = (self.get("decisions") or {}).get("verdict")
        models = self.get("models") or {}
        return (
            f"valid {self.get('kind')} {self.get('artifact')}; {models.get('a')} vs "
            f"{models.get('b')}, {(self.get('metric') or {}).get('name')}, "
            f"{self.get('n_cases')} cases; improvement "
            f"{_fmt(self.get('improvement_a_over_b'), True)} [{_fmt(iv.get('low'), True)}, "
            f"{_fmt(iv.get('high'), True)}]"
            + (f", verdict {verdict}" if verdict else "")
            + f"; digest {str(self.get('digest'))[:12]}..."
            + self._signer()
        )

    def _signer(self) -> str:
        return "" if self.signed_by is None else f"; signed by {self.signed_by[:19]}..."

    def __repr__(self) -> str:
        return f"VerifiedArtifact({self.path!r}: {self.summary()})"

    def _repr_html_(self) -> str:
        path, summary = html.escape(self.path), html.escape(self.summary())
        return f"<p>&#10004; <code>{path}</code>: {summary}</p>"
