"""Checking an artifact anyone may have written (:func:`verify`); vouching for one (:func:`sign`).

Both JSON artifacts follow a bundled JSON Schema (Draft 2020-12): two models,
``paired-comparison-artifact/v1`` of protocol ``paired-comparison/v1`` (its
names are here: :data:`PROTOCOL`, :data:`ARTIFACT`), or several,
``paired-comparison-artifact/v2`` (:mod:`pdpaired.artifacts.multi`), or a
suite of tasks, ``paired-suite-artifact/v1`` (:mod:`pdpaired.artifacts.suite`). Each
carries a ``digest``: the SHA-256 of the canonical JSON of every other field
(:func:`pdpaired.artifacts.digests.content_digest`). :func:`verify` reads the
file as untrusted input (bounded size, nesting measured before parsing,
finite numbers, no key twice), then checks the schema, the digest and the
internal consistency: the v1 checks here, the checks both versions share in
:mod:`pdpaired.artifacts.checks`, v2's in :mod:`pdpaired.artifacts.multi`.
With a public key it also checks the Ed25519 signature :func:`sign` wrote
beside the artifact (:mod:`pdpaired.artifacts.signing`).
"""

from __future__ import annotations

import json
import math
import os
import re
import stat
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from pdpaired._lib.errors import ArtifactError
from pdpaired._lib.public import public
from pdpaired.artifacts.checks import (
    agreement_problems,
    comparison_problems,
    inference_problems,
    slice_problems,
    split_problems,
)
from pdpaired.artifacts.checks import close as _close
from pdpaired.artifacts.digests import canonical_json, content_digest
from pdpaired.artifacts.multi import SCHEMA_FILE_V2, is_multi_artifact, multi_consistency
from pdpaired.artifacts.suite import SCHEMA_FILE_SUITE, is_suite_artifact, suite_consistency
from pdpaired.results.audit import audit_problems
from pdpaired.results.sensitivity import sensitivity_problems
from pdpaired.results.verified import VerifiedArtifact

__all__ = [
    "ARTIFACT",
    "MAX_ARTIFACT_BYTES",
    "MAX_ARTIFACT_DEPTH",
    "PROTOCOL",
    "SCHEMA_FILE",
    "sign",
    "verify",
]

PROTOCOL = "paired-comparison/v1"
ARTIFACT = "paired-comparison-artifact/v1"
SCHEMA_FILE = "paired-comparison-artifact-v1.json"
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


def _schema(name: str = SCHEMA_FILE) -> dict[str, Any]:
    text = resources.files("pdpaired.schemas").joinpath(name).read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


@public
def verify(
    path: str | os.PathLike[str],
    *,
    public_key: str | os.PathLike[str] | None = None,
    signature: str | os.PathLike[str] | None = None,
) -> VerifiedArtifact:
    """Check a comparison artifact: schema, digest, internal consistency and, optionally, signature.

    Both versions are checked: ``paired-comparison-artifact/v1`` (two
    models, :meth:`pdpaired.ComparisonReport.save`) and ``v2`` (several models,
    :meth:`pdpaired.MultiResult.save`), and ``paired-suite-artifact/v1`` (a
    suite of tasks, :meth:`pdpaired.SuiteResult.save`), each against its
    bundled schema -- chosen by what the artifact holds (a ``comparisons``
    list, ``tasks`` and ``pooled``, or neither), so one relabelled as another
    version fails -- and its own consistency checks (see
    :func:`pdpaired.artifacts.multi.multi_consistency`; a suite's pooled
    block is recomputed from its per-task estimates and standard errors,
    :func:`pdpaired.artifacts.suite.suite_consistency`).

    Parameters
    ----------
    path : str or path-like
        ``comparison.json`` or ``comparison.shareable.json``.
    public_key : str or path-like, optional
        PEM Ed25519 public key of the producer: also check the signature
        :func:`pdpaired.sign` wrote (needs ``pip install 'pdpaired[sign]'``).
    signature : str or path-like, optional
        The signature file (default ``<path>.sig``); only with ``public_key``.

    Returns
    -------
    VerifiedArtifact
        The artifact (a dict), when every check passes; its repr is a
        one-line summary, not the whole artifact. ``signed_by`` is the
        fingerprint of the key whose signature was checked (else None).

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
        the report's one seed in each part); and what the records refute:
        an exact binomial p-value or 0/1 metrics the recorded counts do not
        give, a Monte Carlo randomization p-value below ``1 / (1 + R)`` or
        not a count of assignments, ``exact`` without a full enumeration,
        slices that do not partition the cases or are reported below the
        minimum size (in the shareable artifact, at least 10 cases), an
        adjusted p-value below the raw one, a slice verdict its interval
        does not give, a model compared with itself, a selection /
        confirmation split whose counts do not add up or whose confirmation
        ids are not the comparison's (``split``). With ``public_key``: a
        missing signature, one by another key or for another artifact, or
        one that does not match the artifact's bytes.

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
    suite = not several and is_suite_artifact(art)
    schema = SCHEMA_FILE_V2 if several else SCHEMA_FILE_SUITE if suite else SCHEMA_FILE
    validator = Draft202012Validator(_schema(schema))
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
        if several:
            problems += multi_consistency(art)
        elif suite:
            problems += suite_consistency(art)
        else:
            problems += _consistency(art)
    except (ArithmeticError, ValueError, TypeError, KeyError) as err:
        # a content the checks cannot even compute with (the parser already refuses
        # numbers beyond float range and text that is not Unicode): still an ArtifactError
        msg = f"Artifact {os.fspath(path)!r} cannot be checked: {type(err).__name__}: {err}."
        raise ArtifactError(_clip(msg)) from err
    if problems:
        raise _artifact_error(path, problems)
    if signature is not None and public_key is None:
        msg = "`signature` names a signature file to check: give the signer's `public_key` too."
        raise ValueError(msg)
    signed_by = None
    if public_key is not None:
        from pdpaired.artifacts.signing import check_signature

        signed_by = check_signature(art, path, public_key, signature)
    return VerifiedArtifact(art, path=os.fspath(path), signed_by=signed_by)


@public
def sign(
    artifact: str | os.PathLike[str],
    key: str | os.PathLike[str],
    *,
    out: str | os.PathLike[str] | None = None,
) -> Path:
    """Sign a comparison artifact with an Ed25519 private key; write the signature beside it.

    The artifact is verified first (:func:`pdpaired.verify`): only a valid
    artifact is signed. The signature covers its canonical JSON, digest
    included, and is written atomically to ``<artifact>.sig`` (or ``out``).

    Parameters
    ----------
    artifact : str or path-like
        ``comparison.json``, ``comparison.shareable.json`` or a v2 artifact.
    key : str or path-like
        PEM private key (``openssl genpkey -algorithm ed25519 -out key.pem``);
        if it is encrypted, its passphrase is read from ``$PDPAIRED_SIGNING_PASSWORD``.
    out : str or path-like, optional
        Where to write the signature (default ``<artifact>.sig``).

    Returns
    -------
    pathlib.Path
        The signature file.

    Raises
    ------
    ArtifactError
        The artifact does not verify, or the key cannot be read or is not Ed25519.
    ImportError
        The ``cryptography`` package is not installed (``pip install 'pdpaired[sign]'``).

    Examples
    --------
    >>> import tempfile, pathlib, pdpaired
    >>> from cryptography.hazmat.primitives import serialization
    >>> from cryptography.hazmat.primitives.asymmetric import ed25519
    >>> from pdpaired.datasets import load_digits_cv
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> private = ed25519.Ed25519PrivateKey.generate()
    >>> _ = (folder / "key.pem").write_bytes(private.private_bytes(
    ...     serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
    ...     serialization.NoEncryption()))
    >>> _ = (folder / "key.pub").write_bytes(private.public_key().public_bytes(
    ...     serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    >>> rep = load_digits_cv().paired(score="correct").compare(
    ...     "knn", "logreg", higher_is_better=True).report(
    ...     n_resamples=500, n_permutations=500, rng=0)
    >>> shared = rep.save(folder)["shareable"]
    >>> pdpaired.sign(shared, folder / "key.pem").name
    'comparison.shareable.json.sig'
    >>> pdpaired.verify(shared, public_key=folder / "key.pub").signed_by[:7]
    'sha256:'
    """
    from pdpaired.artifacts.signing import signature_path, write_signature

    art = verify(artifact)
    target = Path(out) if out is not None else signature_path(artifact)
    return write_signature(art, key, target)


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
        # non-blocking open, then fstat: a FIFO or a device is refused without waiting
        # for a writer, and the file checked is the one read
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            regular = stat.S_ISREG(os.fstat(f.fileno()).st_mode)
            data = f.read(MAX_ARTIFACT_BYTES + 1) if regular else b""
    except OSError as err:
        msg = f"Cannot read artifact {name!r}: {err.strerror or err}."
        raise ArtifactError(msg) from err
    except ValueError as err:  # e.g. a NUL byte in the path
        msg = f"Cannot read artifact {name!r}: {err}."
        raise ArtifactError(msg) from err
    if not regular:
        msg = f"Cannot read artifact {name!r}: not a regular file."
        raise ArtifactError(msg)
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
    if a["models"]["a"] == a["models"]["b"]:
        out.append(f"models.a and models.b are both {a['models']['a']!r}: a model with itself")
    out += inference_problems(a)
    out += agreement_problems(a)
    if "sensitivity" in a:  # optional (outcomes missing): its own invariants
        out += sensitivity_problems(a["sensitivity"], a)
    if "audit" in a:  # optional (--audit): its own invariants
        out += audit_problems(a["audit"])
    out += slice_problems(a, hib=hib)
    out += split_problems(a)
    return out
