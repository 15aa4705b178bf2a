"""Who produced an artifact: Ed25519 signatures beside it (the ``cryptography`` package).

A digest shows that an artifact was not edited *after* its digest was
computed; anyone who edits it can compute a new one. A signature ties the
artifact to a private key: :func:`sign` writes ``<artifact>.sig`` beside the
artifact, and :func:`pdpaired.verify` with ``public_key=`` checks it, so a
reader who holds the producer's public key knows the comparison came from
them, unchanged.

What is signed is the artifact's canonical JSON
(:func:`pdpaired.artifacts.digests.canonical_json`, its digest included): the
signature survives re-indenting the file, not a changed number. The
signature file is JSON (:data:`SIGNATURE`)::

    {"signature": "paired-comparison-signature/v1", "algorithm": "ed25519",
     "artifact_digest": "<the artifact's digest>",
     "public_key": "<base64 of the 32-byte raw public key>",
     "key_fingerprint": "sha256:<hex of the SHA-256 of those 32 bytes>",
     "value": "<base64 of the 64-byte signature>"}

Keys are PEM files, as OpenSSL writes them::

    openssl genpkey -algorithm ed25519 -out signing-key.pem
    openssl pkey -in signing-key.pem -pubout -out signing-key.pub

A private key encrypted with a passphrase is read with the passphrase in the
environment variable :data:`PASSWORD_VARIABLE`.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

from pdpaired._lib.errors import ArtifactError
from pdpaired._lib.files import atomic_write_text
from pdpaired.artifacts.digests import canonical_json

__all__ = [
    "PASSWORD_VARIABLE",
    "SIGNATURE",
    "check_signature",
    "signature_path",
    "write_signature",
]

SIGNATURE = "paired-comparison-signature/v1"
#: The environment variable holding the passphrase of an encrypted private key.
PASSWORD_VARIABLE = "PDPAIRED_SIGNING_PASSWORD"
_MAX_KEY_BYTES = 64 * 1024
_TEXT_FIELDS = ("artifact_digest", "public_key", "value")
_INSTALL = "signing needs the cryptography package: pip install 'pdpaired[sign]'"


def _crypto() -> Any:
    try:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric import ed25519
    except ImportError as err:
        raise ImportError(_INSTALL) from err
    return serialization, ed25519


def signature_path(artifact: str | os.PathLike[str]) -> Path:
    """Return where the signature of ``artifact`` is kept: ``<artifact>.sig`` beside it."""
    path = Path(artifact)
    return path.with_name(path.name + ".sig")


def _read_small(path: str | os.PathLike[str], what: str) -> bytes:
    """Read a key or signature file: a regular file, at most 64 KiB (anything else: an error)."""
    name = os.fspath(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with open(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                msg = f"Cannot read {what} {name!r}: not a regular file."
                raise ArtifactError(msg)
            data = f.read(_MAX_KEY_BYTES + 1)
    except OSError as err:
        msg = f"Cannot read {what} {name!r}: {err.strerror or err}."
        raise ArtifactError(msg) from err
    if len(data) > _MAX_KEY_BYTES:
        msg = f"{what.capitalize()} {name!r} is larger than {_MAX_KEY_BYTES} bytes: not a {what}."
        raise ArtifactError(msg)
    return data


def _fingerprint(raw: bytes) -> str:
    return "sha256:" + hashlib.sha256(raw).hexdigest()


def _raw_public(key: Any) -> bytes:
    serialization, _ = _crypto()
    raw: bytes = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return raw


def _load_private(path: str | os.PathLike[str]) -> Any:
    serialization, ed25519 = _crypto()
    data = _read_small(path, "private key")
    secret = os.environ.get(PASSWORD_VARIABLE)
    try:
        key = serialization.load_pem_private_key(
            data, password=None if secret is None else secret.encode("utf-8")
        )
    except TypeError as err:  # encrypted without a passphrase, or a passphrase not needed
        msg = (
            f"Private key {os.fspath(path)!r}: {err} (the passphrase is read from "
            f"${PASSWORD_VARIABLE})."
        )
        raise ArtifactError(msg) from err
    except ValueError as err:
        msg = (
            f"Private key {os.fspath(path)!r} is not a PEM private key (or the passphrase is "
            f"wrong): {err}."
        )
        raise ArtifactError(msg) from err
    if not isinstance(key, ed25519.Ed25519PrivateKey):
        msg = (
            f"Private key {os.fspath(path)!r} is a {type(key).__name__}, not an Ed25519 key "
            "(openssl genpkey -algorithm ed25519)."
        )
        raise ArtifactError(msg)
    return key


def _load_public(path: str | os.PathLike[str]) -> Any:
    serialization, ed25519 = _crypto()
    data = _read_small(path, "public key")
    try:
        key = serialization.load_pem_public_key(data)
    except ValueError as err:
        msg = f"Public key {os.fspath(path)!r} is not a PEM public key: {err}."
        raise ArtifactError(msg) from err
    if not isinstance(key, ed25519.Ed25519PublicKey):
        msg = f"Public key {os.fspath(path)!r} is a {type(key).__name__}, not an Ed25519 key."
        raise ArtifactError(msg)
    return key


def write_signature(art: dict[str, Any], key: str | os.PathLike[str], target: Path) -> Path:
    """Sign the verified artifact ``art`` with the PEM private key ``key``; write ``target``.

    The signature covers the canonical JSON, digest included; the file is
    written atomically (a temporary file beside it, then one rename).
    """
    private = _load_private(key)
    raw = _raw_public(private.public_key())
    value = private.sign(canonical_json(dict(art)).encode("utf-8"))
    record = {
        "signature": SIGNATURE,
        "algorithm": "ed25519",
        "artifact_digest": art["digest"],
        "public_key": base64.b64encode(raw).decode("ascii"),
        "key_fingerprint": _fingerprint(raw),
        "value": base64.b64encode(value).decode("ascii"),
    }
    return atomic_write_text(target, json.dumps(record, indent=2, sort_keys=True) + "\n")


def check_signature(
    art: dict[str, Any],
    artifact: str | os.PathLike[str],
    public_key: str | os.PathLike[str],
    signature: str | os.PathLike[str] | None = None,
) -> str:
    """Check the signature of a verified artifact ``art`` read from ``artifact``.

    Returns the key's fingerprint; raises :class:`~pdpaired.ArtifactError`
    naming what failed: no signature file, one that is not a signature, one
    made for another artifact or with another key, or a signature that does
    not match the artifact's bytes.
    """
    key = _load_public(public_key)  # first: without cryptography, the pip install line
    from cryptography.exceptions import InvalidSignature

    raw = _raw_public(key)
    where = Path(signature) if signature is not None else signature_path(artifact)
    data = _read_small(where, "signature")
    try:
        record = json.loads(data.decode("utf-8"))
        ok = (
            isinstance(record, dict)
            and record.get("signature") == SIGNATURE
            and record.get("algorithm") == "ed25519"
            and all(isinstance(record.get(k), str) for k in _TEXT_FIELDS)
        )
        value = base64.b64decode(record["value"], validate=True) if ok else b""
        signer = base64.b64decode(record["public_key"], validate=True) if ok else b""
    except (ValueError, UnicodeDecodeError, binascii.Error) as err:
        msg = f"Signature {os.fspath(where)!r} is not a {SIGNATURE} file: {err}."
        raise ArtifactError(msg) from err
    if not ok:
        msg = f"Signature {os.fspath(where)!r} is not a {SIGNATURE} file (ed25519)."
        raise ArtifactError(msg)
    if signer != raw:
        msg = (
            f"Signature {os.fspath(where)!r} was made with key {_fingerprint(signer)}, not with "
            f"the public key given ({_fingerprint(raw)})."
        )
        raise ArtifactError(msg)
    if record["artifact_digest"] != art["digest"]:
        msg = (
            f"Signature {os.fspath(where)!r} is for the artifact with digest "
            f"{record['artifact_digest'][:12]}..., not this one ({art['digest'][:12]}...)."
        )
        raise ArtifactError(msg)
    try:
        key.verify(value, canonical_json(dict(art)).encode("utf-8"))
    except InvalidSignature as err:
        msg = (
            f"Signature {os.fspath(where)!r} does not match the artifact {os.fspath(artifact)!r}: "
            "it was changed after it was signed, or the signature was forged."
        )
        raise ArtifactError(msg) from err
    return _fingerprint(raw)
