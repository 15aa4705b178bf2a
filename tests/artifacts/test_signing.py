"""Ed25519 signatures beside an artifact: who produced it, not only that it is consistent.

A round trip through the Python API and the command line; OpenSSL as the
independent oracle (its keys sign, its ``pkeyutl`` verifies pdpaired's
signature over the canonical bytes); and every way a signature must fail,
each exiting 2 with one line: a tampered byte, a forgery with its digest
recomputed, the wrong key, a missing or malformed signature file, a
signature of another artifact, a key that is not Ed25519, an encrypted key
without its passphrase.
"""

from __future__ import annotations

import base64
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

import pdpaired
from pdpaired.artifacts import digests
from pdpaired.artifacts.signing import PASSWORD_VARIABLE, signature_path
from pdpaired.cli.main import main

pytest.importorskip("cryptography")
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, ed25519

OPENSSL = shutil.which("openssl")


def key_pair(folder: Path, name: str = "key", password: bytes | None = None) -> tuple[Path, Path]:
    key = ed25519.Ed25519PrivateKey.generate()
    enc = (serialization.NoEncryption() if password is None
           else serialization.BestAvailableEncryption(password))  # fmt: skip
    private, public = folder / f"{name}.pem", folder / f"{name}.pub"
    private.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                          serialization.PrivateFormat.PKCS8, enc))  # fmt: skip
    public.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))  # fmt: skip
    return private, public


@pytest.fixture(scope="module")
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    from pdpaired.datasets import load_digits_cv

    rep = load_digits_cv().paired(score="correct").compare(
        "knn", "logreg", higher_is_better=True).report(
        n_resamples=300, n_permutations=300, rng=0)  # fmt: skip
    paths = rep.save(tmp_path_factory.mktemp("signed"))
    return {"local": paths["local"], "shareable": paths["shareable"]}


@pytest.fixture
def signed(artifacts: dict[str, Path], tmp_path: Path) -> tuple[Path, Path, Path]:
    art = tmp_path / "comparison.shareable.json"
    shutil.copy(artifacts["shareable"], art)
    private, public = key_pair(tmp_path)
    assert main(["sign", str(art), "--key", str(private)]) == 0
    return art, private, public


def one_line_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], lines[0]
    return lines[0]


# --------------------------------------------------------------------------- round trips
def test_sign_and_verify_round_trip_from_the_command_line(
    signed: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    art, _, public = signed
    capsys.readouterr()
    record = json.loads(signature_path(art).read_text("utf-8"))
    assert record["signature"] == "paired-comparison-signature/v1"
    assert record["artifact_digest"] == json.loads(art.read_text("utf-8"))["digest"]
    assert main(["verify", str(art), "--public-key", str(public)]) == 0
    out = capsys.readouterr().out
    assert "Signature OK: key sha256:" in out
    assert record["key_fingerprint"] in out


def test_the_python_api_round_trip_and_the_fingerprint(
    artifacts: dict[str, Path], tmp_path: Path
) -> None:
    private, public = key_pair(tmp_path)
    sig = pdpaired.sign(artifacts["local"], private, out=tmp_path / "local.sig")
    got = pdpaired.verify(artifacts["local"], public_key=public, signature=sig)
    raw = serialization.load_pem_public_key(public.read_bytes()).public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw)  # fmt: skip
    import hashlib

    assert got.signed_by == "sha256:" + hashlib.sha256(raw).hexdigest()
    assert "signed by sha256:" in repr(got)
    assert pdpaired.verify(artifacts["local"]).signed_by is None  # no key asked: not checked


def test_a_signature_survives_reindenting_the_file(signed: tuple[Path, Path, Path]) -> None:
    art, _, public = signed
    art.write_text(json.dumps(json.loads(art.read_text("utf-8")), indent=7), encoding="utf-8")
    assert pdpaired.verify(art, public_key=public).signed_by is not None


@pytest.mark.skipif(OPENSSL is None, reason="openssl is not installed")
def test_openssl_keys_sign_and_openssl_verifies_the_signature(
    artifacts: dict[str, Path], tmp_path: Path
) -> None:
    assert OPENSSL is not None
    private, public = tmp_path / "o.pem", tmp_path / "o.pub"
    subprocess.run([OPENSSL, "genpkey", "-algorithm", "ed25519", "-out", str(private)],
                   check=True, capture_output=True)  # fmt: skip
    subprocess.run([OPENSSL, "pkey", "-in", str(private), "-pubout", "-out", str(public)],
                   check=True, capture_output=True)  # fmt: skip
    sig = pdpaired.sign(artifacts["shareable"], private, out=tmp_path / "s.sig")
    assert pdpaired.verify(artifacts["shareable"], public_key=public, signature=sig)
    # the oracle: OpenSSL checks the raw signature over the artifact's canonical bytes
    art = json.loads(artifacts["shareable"].read_text("utf-8"))
    (tmp_path / "msg").write_bytes(digests.canonical_json(art).encode("utf-8"))
    (tmp_path / "raw.sig").write_bytes(base64.b64decode(json.loads(sig.read_text())["value"]))
    proc = subprocess.run(
        [OPENSSL, "pkeyutl", "-verify", "-pubin", "-inkey", str(public), "-rawin",
         "-in", str(tmp_path / "msg"), "-sigfile", str(tmp_path / "raw.sig")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Signature Verified Successfully" in proc.stdout


# --------------------------------------------------------------------------- failures
def test_a_tampered_byte_exits_2(
    signed: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    art, _, public = signed
    text = art.read_text("utf-8")
    art.write_text(text.replace('"knn"', '"kNN"', 1), encoding="utf-8")
    one_line_exit_2(["verify", str(art), "--public-key", str(public)], capsys, "digest")


def test_a_forgery_with_a_recomputed_digest_fails_the_signature(
    signed: tuple[Path, Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    art, _, public = signed
    body: dict[str, Any] = json.loads(art.read_text("utf-8"))
    body["models"] = {"a": "knn-v2", "b": body["models"]["b"]}  # consistent, re-digested
    body["digest"] = digests.content_digest(body)
    art.write_text(json.dumps(body), encoding="utf-8")
    assert pdpaired.verify(art)  # self-consistent: only the signature can tell
    one_line_exit_2(["verify", str(art), "--public-key", str(public)], capsys,
                    "is for the artifact with digest")  # fmt: skip
    # ... and with the signature file's digest edited too, the signature itself fails
    sig = signature_path(art)
    record = json.loads(sig.read_text("utf-8"))
    record["artifact_digest"] = body["digest"]
    sig.write_text(json.dumps(record), encoding="utf-8")
    one_line_exit_2(["verify", str(art), "--public-key", str(public)], capsys,
                    "does not match the artifact")  # fmt: skip


def test_the_wrong_key_exits_2(
    signed: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    art, _, _ = signed
    _, other = key_pair(tmp_path, "other")
    one_line_exit_2(["verify", str(art), "--public-key", str(other)], capsys,
                    "was made with key sha256:", "not with the public key given")  # fmt: skip


def test_a_signature_value_of_another_key_exits_2(
    signed: tuple[Path, Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # the signer's public key recorded, but the value made by another key
    art, _, public = signed
    other, _ = key_pair(tmp_path, "other")
    forged = pdpaired.sign(art, other, out=tmp_path / "other.sig")
    record = json.loads(signature_path(art).read_text("utf-8"))
    record["value"] = json.loads(forged.read_text("utf-8"))["value"]
    signature_path(art).write_text(json.dumps(record), encoding="utf-8")
    one_line_exit_2(["verify", str(art), "--public-key", str(public)], capsys,
                    "does not match the artifact")  # fmt: skip


@pytest.mark.parametrize("content", ["", "not json", '{"signature": "x"}', "[1]",
                                     '{"signature": "paired-comparison-signature/v1", '
                                     '"algorithm": "ed25519", "artifact_digest": "a", '
                                     '"public_key": "!!", "value": "??"}'])  # fmt: skip
def test_a_missing_or_malformed_signature_file_exits_2(
    signed: tuple[Path, Path, Path], content: str, capsys: pytest.CaptureFixture[str]
) -> None:
    art, _, public = signed
    signature_path(art).write_text(content, encoding="utf-8")
    one_line_exit_2(["verify", str(art), "--public-key", str(public)], capsys, "Signature")
    signature_path(art).unlink()
    one_line_exit_2(["verify", str(art), "--public-key", str(public)], capsys,
                    "Cannot read signature")  # fmt: skip


def test_keys_that_are_not_ed25519_or_locked(
    artifacts: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    ec_key = ec.generate_private_key(ec.SECP256R1())
    pem = tmp_path / "ec.pem"
    pem.write_bytes(ec_key.private_bytes(serialization.Encoding.PEM,
                                         serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()))  # fmt: skip
    art = str(artifacts["shareable"])
    one_line_exit_2(["sign", art, "--key", str(pem), "--signature", str(tmp_path / "x.sig")],
                    capsys, "not an Ed25519 key")  # fmt: skip
    locked, public = key_pair(tmp_path, "locked", password=b"correct horse")
    out = ["--signature", str(tmp_path / "l.sig")]
    monkeypatch.delenv(PASSWORD_VARIABLE, raising=False)
    one_line_exit_2(["sign", art, "--key", str(locked), *out], capsys, PASSWORD_VARIABLE)
    monkeypatch.setenv(PASSWORD_VARIABLE, "wrong")
    one_line_exit_2(["sign", art, "--key", str(locked), *out], capsys, "passphrase")
    monkeypatch.setenv(PASSWORD_VARIABLE, "correct horse")
    assert main(["sign", art, "--key", str(locked), *out]) == 0
    assert main(["verify", art, "--public-key", str(public), *out]) == 0
    capsys.readouterr()
    one_line_exit_2(["verify", art, "--public-key", str(locked), *out], capsys,
                    "not a PEM public key")  # fmt: skip


def test_an_invalid_artifact_is_not_signed(
    artifacts: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = json.loads(artifacts["shareable"].read_text("utf-8"))
    body["metric_a"] += 0.5
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(body), encoding="utf-8")
    private, _ = key_pair(tmp_path)
    one_line_exit_2(["sign", str(bad), "--key", str(private)], capsys, "failed")
    assert not signature_path(bad).exists()


def test_a_signature_file_without_a_public_key_is_a_usage_error(
    artifacts: dict[str, Path],
) -> None:
    with pytest.raises(ValueError, match="public_key"):
        pdpaired.verify(artifacts["shareable"], signature="x.sig")


def test_without_cryptography_the_message_names_the_extra(
    signed: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    import sys

    art, private, public = signed
    for name in [m for m in sys.modules if m == "cryptography" or m.startswith("cryptography.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "cryptography", None)  # import cryptography fails
    one_line_exit_2(["verify", str(art), "--public-key", str(public)], capsys,
                    "pip install 'pdpaired[sign]'")  # fmt: skip
    one_line_exit_2(["sign", str(art), "--key", str(private)], capsys, "pdpaired[sign]")
