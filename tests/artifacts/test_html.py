"""The HTML reports: one self-contained page that holds what the shareable artifact holds.

Without a browser, the page is parsed and checked: nothing to fetch (no ``src``,
``href`` or CSS ``url()`` outside the page), no script, labels from the data shown
as text (canary labels that are HTML or Matplotlib markup), the verdict first, the
shareable artifact embedded verbatim (and accepted by ``pdpaired.verify``), no case
id, no per-case value and no small slice, the same bytes for the same report.

With headless Chromium (Debian: ``apt install chromium``; these tests skip without
it, saying so), each page is loaded at a phone width (390 px) and a desktop width
(1280 px) through the DevTools protocol: no request beyond the page itself, no
console message of level error (a blocked request is one), no sideways scrolling,
the verdict in the first screen and the plots' text at least 9 px tall. A
negative control shows the same harness catching a request and a console error.
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
import re
import select
import shutil
import subprocess
import time
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import pdpaired
from pdpaired.cli.main import main
from pdpaired.datasets import load_digits_cv
from pdpaired.results.html_report import CSP

#: labels that are markup in HTML, in an attribute, or in Matplotlib (mathtext)
EVIL_A = "<script>alert(1)</script>"
EVIL_B = '"><img src=x onerror=alert(2)>'
EVIL_SITE = "<b>north</b> & $x^2$"
CANARY = "CANARY{:03d}"


def evil_frame(n: int = 120, seed: int = 0) -> pd.DataFrame:
    """Two models with markup names, a shown slice with a markup label, a 6-case slice
    and an id-like slice column (both below the shareable floor), case ids that are
    canaries."""
    rng = np.random.default_rng(seed)
    b = rng.normal(size=n)
    a = b + 0.4 + rng.normal(0, 1, n)
    site = np.where(np.arange(n) < 6, "SECRETSITE", np.where(np.arange(n) % 3, EVIL_SITE, "south"))
    ident = [CANARY.format(i) for i in range(n)]
    ids = [f"CASEID{i:04d}" for i in range(n)]
    return pd.concat(
        [pd.DataFrame({"case_id": ids, "model": m, "score": s, "site": site, "ident": ident})
         for m, s in ((EVIL_A, a), (EVIL_B, b))],
        ignore_index=True,
    )  # fmt: skip


def leaked(text: str) -> list[str]:
    return sorted(set(re.findall(r"CANARY\d{3}|SECRETSITE|CASEID\d{4}", text)))


class Page(HTMLParser):
    """The parsed page: tags with their attributes, text, and the text of each element id."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []
        self.pre: list[str] = []
        self._in_pre = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in_pre = self._in_pre or tag == "pre"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._in_pre:
            self.pre.append(data)

    def names(self) -> list[str]:
        return [t for t, _ in self.tags]

    def words(self) -> str:
        return " ".join(" ".join(self.text).split())


@pytest.fixture(scope="module")
def report() -> pdpaired.ComparisonReport:
    cmp = evil_frame().paired.compare(EVIL_A, EVIL_B, higher_is_better=True)
    return cmp.report(
        n_resamples=300, n_permutations=300, rng=0, slices=["site", "ident"], min_slice_size=1,
        slice_uncertainty=True, practical_threshold=0.05,
    )  # fmt: skip


@pytest.fixture(scope="module")
def several() -> pdpaired.MultiResult:
    df = evil_frame()
    third = df[df["model"] == EVIL_B].assign(model="third & <i>", score=lambda d: d["score"] + 0.1)
    return pd.concat([df, third]).paired.against(EVIL_B, higher_is_better=True, rng=0,
                                                 n_resamples=300)  # fmt: skip


def suite_frame() -> pd.DataFrame:
    rng = np.random.default_rng(1)
    tasks = [("x", 0.3), ("$y_{1}$ <b>", 0.5), ("z", 0.4)]
    return pd.concat([pd.DataFrame({
        "task": t, "case_id": np.repeat(np.arange(60), 2), "model": [EVIL_A, "B"] * 60,
        "score": rng.normal(0, 1, 120) + np.tile([lift, 0.0], 60)}) for t, lift in tasks],
        ignore_index=True)  # fmt: skip


@pytest.fixture(scope="module")
def suite() -> pdpaired.SuiteResult:
    return suite_frame().paired.suite(EVIL_A, "B", higher_is_better=True, rng=0, n_resamples=300)


@pytest.fixture(scope="module")
def pages(report: Any, several: Any, suite: Any) -> dict[str, str]:
    return {"report": report.to_html(), "several": several.to_html(), "suite": suite.to_html()}


# ----------------------------------------------------------------------------- self-contained
_FETCHING = ("src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data",
             "background", "ping", "manifest", "codebase", "cite")  # fmt: skip


@pytest.mark.parametrize("kind", ["report", "several", "suite"])
def test_the_page_fetches_nothing_and_runs_nothing(pages: dict[str, str], kind: str) -> None:
    text = pages[kind]
    page = Page(text)
    names = set(page.names())
    never = {"script", "link", "iframe", "object", "embed", "img", "base", "form", "video",
             "audio", "source", "foreignobject"}  # fmt: skip
    assert names.isdisjoint(never), names
    for tag, attrs in page.tags:
        for key, value in attrs.items():
            assert not key.startswith("on"), (tag, key)  # no event handler
            if key in _FETCHING:
                assert (value or "").startswith("#"), (tag, key, value)
            if key == "style" and value:
                assert "url(" not in value, (tag, value)
                assert "@import" not in value, (tag, value)
    # in CSS and in the SVGs' attributes, url() points inside the page only
    assert re.findall(r"url\((?!#)", text) == []
    assert "@import" not in text
    # the policy forbids every request and every script, should anything slip through
    csp = [a.get("content") for t, a in page.tags if t == "meta"
           and (a.get("http-equiv") or "").lower() == "content-security-policy"]  # fmt: skip
    assert csp
    assert "default-src 'none'" in str(csp[0])
    assert "script-src" not in str(csp[0])
    assert "<svg" in text


@pytest.mark.parametrize("kind", ["report", "several", "suite"])
def test_labels_from_the_data_are_text_not_markup(pages: dict[str, str], kind: str) -> None:
    text = pages[kind]
    assert EVIL_A not in text
    assert EVIL_B not in text
    assert html.escape(EVIL_A) in text
    words = Page(text).words()
    assert EVIL_A in words  # shown as the characters the data holds
    if kind != "suite":
        assert EVIL_B in words
    if kind == "report":
        assert EVIL_SITE in words


# ----------------------------------------------------------------------------- disclosure
def embedded_artifact(text: str) -> dict[str, Any]:
    """The JSON of the page's ``<details>`` block, as a reader copies it."""
    blocks = [b for b in Page(text).pre if b.lstrip().startswith("{")]
    assert len(blocks) == 1
    out: dict[str, Any] = json.loads(blocks[0])
    return out


def test_the_report_holds_the_shareable_artifact_and_nothing_local(
    report: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    text = pages["report"]
    shared = report.to_artifact("shareable")
    assert embedded_artifact(text) == shared
    path = tmp_path / "comparison.shareable.json"
    path.write_text(json.dumps(embedded_artifact(text)), encoding="utf-8")
    assert pdpaired.verify(path)["digest"] == shared["digest"]
    # the local analysis saw the canaries; the page never shows them
    assert leaked(str(report.to_artifact("local")))
    assert leaked(text) == []
    local = report.to_artifact("local")["local"]
    assert local["aligned_ids_sha256"] not in text
    for x in local["inputs"]:
        for v in x.values():
            assert v not in text
    # no per-case score with its digits
    df = evil_frame()
    for x in df.loc[df["model"] == EVIL_A, "score"].head(30):
        assert f"{x:.6g}" not in text


def test_the_slice_table_is_the_shareable_artifacts(report: Any, pages: dict[str, str]) -> None:
    text = pages["report"]
    rows = report.to_artifact("shareable")["slices"]["rows"]
    table = re.search(r"<caption>Slices.*?</tbody>", text, re.S)
    assert table
    trs = re.findall(r"<tr>(.*?)</tr>", table.group(0), re.S)
    cells = [[html.unescape(re.sub(r"<[^>]+>", "", c)) for c in re.findall(r"<td[^>]*>(.*?)</td>",
              tr, re.S)] for tr in trs]  # fmt: skip
    cells = [c for c in cells if c]
    assert len(cells) == len(rows)
    for c, r in zip(cells, rows, strict=True):
        assert c[0] == f"{r['column']} = {r['value']}"
        assert c[1] == str(r["n"])
        assert c[2] == r["status"]
    assert any(r["status"] == "suppressed" for r in rows)
    assert "are suppressed" in Page(text).words()


def test_the_design_audit_is_on_the_page_as_its_shareable_block(report: Any) -> None:
    cmp = evil_frame().paired.compare(EVIL_A, EVIL_B, higher_is_better=True)
    audit = cmp.audit(n_simulations=20, n_resamples=99, rng=0)
    rep = replace(report, audit=audit)
    shared = rep.to_artifact("shareable")
    assert shared["audit"] == audit.artifact_block() == rep.to_artifact("local")["audit"]
    text = rep.to_html()
    assert embedded_artifact(text) == shared
    words = Page(text).words()
    assert f"Trust the {audit.recommended_method} interval on this design" in words
    for row in audit.rows:  # every method's numbers, as the artifact records them
        if row.kind == "interval":
            assert f"coverage {row.coverage:.3f} +/- {row.coverage_se:.3f}" in words
        else:
            assert f"size {row.size:.3f} +/- {row.size_se:.3f}" in words
    assert "Design audit" not in Page(report.to_html()).words()  # no audit, no section


def test_the_several_model_page_holds_the_v2_shareable_artifact(
    several: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    text = pages["several"]
    shared = several.to_artifact("shareable")
    assert embedded_artifact(text) == shared
    path = tmp_path / "comparison.shareable.json"
    path.write_text(json.dumps(shared), encoding="utf-8")
    assert pdpaired.verify(path)["digest"] == shared["digest"]
    assert leaked(text) == []


def test_the_suite_page_holds_its_shareable_artifact_and_no_case(
    suite: Any, pages: dict[str, str], tmp_path: Path
) -> None:
    text = pages["suite"]
    shared = suite.to_artifact("shareable")
    assert embedded_artifact(text) == shared
    path = tmp_path / "comparison.shareable.json"
    path.write_text(json.dumps(shared), encoding="utf-8")
    assert pdpaired.verify(path)["digest"] == shared["digest"]
    assert "CASEID" not in text
    assert "case_id" not in text


# ----------------------------------------------------------------------------- reading order
def test_the_verdict_comes_first_in_words(report: Any, several: Any, suite: Any,
                                          pages: dict[str, str]) -> None:  # fmt: skip
    leads = {
        "report": report.headline(),
        "several": None,
        "suite": suite.verdict_sentence(),
    }
    for kind, text in pages.items():
        page = Page(text)
        body = [t for t in page.names() if t in ("h1", "p", "h2", "section", "figure", "table")]
        assert body[:2] == ["h1", "p"], kind  # the title, then the verdict before any section
        verdict = re.search(r'<p class="verdict[^"]*" id="verdict">(.*?)</p>', text, re.S)
        assert verdict, kind
        said = html.unescape(verdict.group(1))
        if leads[kind] is not None:
            assert said == leads[kind]
    # several models: each comparison's verdict, by name, in the lead sentence
    said = html.unescape(re.search(r'id="verdict">(.*?)</p>', pages["several"], re.S).group(1))
    assert said.startswith(f"Against the baseline {EVIL_B}: ")
    for bs in several.comparisons:
        assert str(bs.a) in said
    # the headline of a report in which a test disagrees carries the disagreement too
    assert report.headline().startswith(report.bootstrap.headline())


def test_the_sections_are_there(report: Any, pages: dict[str, str]) -> None:
    text = pages["report"]
    for slug in ("interval", "tests", "slices", "coverage", "provenance"):
        assert f'<section id="{slug}">' in text
    assert text.count("<svg") == 2  # the interval plot and the slices' forest plot
    assert "pdpaired verify comparison.shareable.json" in text


def test_the_sensitivity_section_when_outcomes_are_missing() -> None:
    rng = np.random.default_rng(3)
    n = 150
    a, b = (rng.random(n) < 0.8).astype(float), (rng.random(n) < 0.7).astype(float)
    a[:9] = np.nan
    df = pd.concat([pd.DataFrame({"case_id": np.arange(n), "model": m, "score": s})
                    for m, s in (("new", a), ("old", b))])  # fmt: skip
    rep = df.paired.compare("new", "old", higher_is_better=True, missing="complete-case").report(
        n_resamples=300, n_permutations=300, rng=0
    )
    assert rep.sensitivity is not None
    text = rep.to_html()
    assert '<section id="sensitivity">' in text
    assert text.count("<svg") == 2
    assert embedded_artifact(text)["sensitivity"] == rep.to_artifact("shareable")["sensitivity"]


# ----------------------------------------------------------------------------- the file
def test_the_same_report_gives_the_same_bytes_and_unique_ids(report: Any) -> None:
    text = report.to_html()
    assert text == report.to_html()
    assert re.search(r"\b(19|20)\d\d-\d\d-\d\d", text) is None  # no date
    ids = re.findall(r'\bid="([^"]+)"', text)
    assert len(ids) == len(set(ids))
    for ref in re.findall(r'(?:href="#|url\(#)([^")]+)', text):
        assert ref in ids  # every reference resolves inside its own figure


def test_to_html_writes_the_file_atomically(report: Any, tmp_path: Path) -> None:
    target = tmp_path / "report.html"
    target.write_text("old", encoding="utf-8")
    text = report.to_html(target)
    assert target.read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]  # no temporary left
    assert oct(target.stat().st_mode & 0o777) == oct(0o644)
    with pytest.raises(FileNotFoundError):
        report.to_html(tmp_path / "no-such-dir" / "r.html")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


def test_the_digits_report_page_is_small() -> None:
    rep = (
        load_digits_cv()
        .paired(score="correct")
        .compare("knn", "logreg", higher_is_better=True)
        .report(n_resamples=500, n_permutations=500, rng=0, slices="target", slice_uncertainty=True)
    )
    size = len(rep.to_html().encode("utf-8"))
    assert 20_000 < size < 400_000, size


# ----------------------------------------------------------------------------- the CLI
def test_the_cli_writes_the_html_page_for_two_and_for_several_models(tmp_path: Path) -> None:
    df = evil_frame()
    df["model"] = df["model"].map({EVIL_A: "A", EVIL_B: "B"})
    third = df[df["model"] == "B"].assign(model="C", score=lambda d: d["score"] - 0.2)
    path, many = tmp_path / "long.csv", tmp_path / "many.csv"
    df.to_csv(path, index=False)
    pd.concat([df, third]).to_csv(many, index=False)
    page = tmp_path / "two.html"
    code = main(["compare", str(path), "--long", "--a", "A", "--b", "B", "--score", "score",
                 "--higher-is-better", "--slice-columns", "site", "ident",
                 "--min-slice-size", "1", "--resamples", "200", "--permutations", "200",
                 "--seed", "0", "--html", str(page), "--out", str(tmp_path / "out")])  # fmt: skip
    assert code == 0
    text = page.read_text(encoding="utf-8")
    saved = json.loads((tmp_path / "out" / "comparison.shareable.json").read_text("utf-8"))
    assert embedded_artifact(text) == saved
    assert leaked(text) == []
    assert str(path) not in text
    page2 = tmp_path / "several.html"
    code = main(["compare", str(many), "--long", "--score", "score", "--higher-is-better",
                 "--baseline", "B", "--resamples", "200", "--seed", "0",
                 "--html", str(page2)])  # fmt: skip
    assert code == 0
    text2 = page2.read_text(encoding="utf-8")
    assert embedded_artifact(text2)["artifact"] == "paired-comparison-artifact/v2"
    assert "Against the baseline B" in text2


def test_the_cli_refuses_an_html_path_it_cannot_write_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "long.csv"
    evil_frame().assign(model=lambda d: d["model"].map({EVIL_A: "A", EVIL_B: "B"})).to_csv(
        path, index=False
    )
    for bad in (tmp_path / "missing-dir" / "r.html", tmp_path):
        code = main(["compare", str(path), "--long", "--a", "A", "--b", "B", "--score", "score",
                     "--higher-is-better", "--html", str(bad)])  # fmt: skip
        assert code == 2
        out = capsys.readouterr()
        assert "--html" in out.err
        assert "not a file in an existing directory" in out.err
        assert out.out == ""  # refused before any work


# ----------------------------------------------------------------------------- in Chromium
BROWSER = next(
    (b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None
)
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no headless Chromium on this machine (Debian: apt install chromium)"
)


class DevTools:
    """Headless Chromium driven over ``--remote-debugging-pipe`` (fd 3 in, fd 4 out).

    Offline and without a driver package: the DevTools protocol's JSON
    messages, NUL-terminated, on two pipes.
    """

    def __init__(self, browser: str, profile: Path) -> None:
        cmd_r, cmd_w = os.pipe()
        out_r, out_w = os.pipe()

        def child_fds() -> None:  # in the child, before exec: the pipes as fds 3 and 4
            a, b = os.dup(cmd_r), os.dup(out_w)
            os.dup2(a, 3)
            os.dup2(b, 4)
            os.set_inheritable(3, True)  # dup2 onto itself keeps the close-on-exec flag
            os.set_inheritable(4, True)

        self.proc = subprocess.Popen(
            [browser, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, close_fds=False,
        )  # fmt: skip
        os.close(cmd_r)
        os.close(out_w)
        self.w, self.r = cmd_w, out_r
        self.buf = b""
        self.n = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget",
                                 {"targetId": target, "flatten": True})["sessionId"]  # fmt: skip
        for domain in ("Page", "Network", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=True)

    def _messages(self, deadline: float) -> list[dict[str, Any]]:
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("Chromium did not answer")
            if select.select([self.r], [], [], left)[0]:
                chunk = os.read(self.r, 1 << 20)
                if not chunk:
                    raise RuntimeError("Chromium closed the pipe")
                self.buf += chunk
        head, _, self.buf = self.buf.rpartition(b"\0")
        return [json.loads(m) for m in head.split(b"\0")]

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             session: bool = False, timeout: float = 60) -> dict[str, Any]:  # fmt: skip
        self.n += 1
        msg: dict[str, Any] = {"id": self.n, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = self.session
        os.write(self.w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            for m in self._messages(deadline):
                if m.get("id") == self.n:
                    if "error" in m:
                        raise RuntimeError(f"{method}: {m['error']}")
                    out: dict[str, Any] = m["result"]
                    return out
                self.events.append(m)

    def load(self, url: str, width: int, height: int = 900) -> list[dict[str, Any]]:
        """Load ``url`` at a ``width`` px viewport (mobile below 600 px); return its events."""
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1,
                   "mobile": width < 600}, session=True)  # fmt: skip
        self.events.clear()
        self.send("Page.navigate", {"url": url}, session=True)
        deadline = time.monotonic() + 60
        while not any(e.get("method") == "Page.loadEventFired" for e in self.events):
            self.events.extend(self._messages(deadline))
        self.send("Runtime.evaluate", {"expression": "1"}, session=True)  # flush late events
        return list(self.events)

    def evaluate(self, expression: str) -> Any:
        res = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                        session=True)  # fmt: skip
        return res["result"].get("value")

    def screenshot(self) -> bytes:
        size = self.send("Page.getLayoutMetrics", session=True)["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
        data = self.send("Page.captureScreenshot",
                         {"format": "png", "clip": clip, "captureBeyondViewport": True},
                         session=True)["data"]  # fmt: skip
        return base64.b64decode(data)

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (RuntimeError, TimeoutError, OSError):
            self.proc.kill()
        self.proc.wait(timeout=30)
        os.close(self.w)
        os.close(self.r)


def problems(events: list[dict[str, Any]], url: str) -> list[str]:
    """Requests other than the page itself, console errors, exceptions, error log entries."""
    out = []
    for e in events:
        method, p = e.get("method"), e.get("params", {})
        if method == "Network.requestWillBeSent" and p["request"]["url"] != url:
            out.append(f"request {p['request']['url']}")
        elif method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert", "warning"):
            out.append(f"console {p['type']}: {p['args']}")
        elif method == "Runtime.exceptionThrown":
            out.append(f"exception {p['exceptionDetails'].get('text')}")
        elif method == "Log.entryAdded" and p["entry"]["level"] in ("error", "warning"):
            out.append(f"log {p['entry']['level']}: {p['entry']['text']}")
    return out


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Any:
    assert BROWSER is not None
    tools = DevTools(BROWSER, tmp_path_factory.mktemp("chromium-profile"))
    yield tools
    tools.close()


_LAYOUT = """JSON.stringify({
  scroll: document.documentElement.scrollWidth,
  client: document.documentElement.clientWidth,
  verdictTop: document.getElementById('verdict').getBoundingClientRect().top,
  verdictBottom: document.getElementById('verdict').getBoundingClientRect().bottom,
  verdictFont: parseFloat(getComputedStyle(document.getElementById('verdict')).fontSize),
  svgs: [...document.querySelectorAll('figure svg')].map(s => ({
    left: s.getBoundingClientRect().left, right: s.getBoundingClientRect().right,
    px: s.getBoundingClientRect().width, units: s.viewBox.baseVal.width})),
  sections: document.querySelectorAll('section').length,
})"""


@needs_browser
@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("kind", ["report", "several", "suite"])
def test_the_page_renders_offline_without_errors_and_reads_at_this_width(
    browser: Any, pages: dict[str, str], tmp_path: Path, kind: str, width: int
) -> None:
    path = tmp_path / f"{kind}.html"
    path.write_text(pages[kind], encoding="utf-8")
    url = path.as_uri()
    events = browser.load(url, width)
    assert problems(events, url) == []
    layout = json.loads(browser.evaluate(_LAYOUT))
    assert layout["scroll"] <= layout["client"]  # no sideways scrolling of the page
    assert width - 20 <= layout["client"] <= width  # the viewport, less a scroll bar
    assert layout["verdictTop"] >= 0
    assert layout["verdictBottom"] <= 900
    assert layout["verdictFont"] >= 16
    assert layout["sections"] >= 2
    assert layout["svgs"]
    for svg in layout["svgs"]:
        assert svg["left"] >= 0
        assert svg["right"] <= width
        # plot text is 12 viewBox units (points) tall: at least 9 CSS px on the screen
        assert 12 * svg["px"] / svg["units"] >= 9, svg
    png = browser.screenshot()
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("L")
    assert image.size[0] == layout["client"]
    lo, hi = image.getextrema()
    assert lo < 100
    assert hi > 200


@needs_browser
def test_the_browser_check_catches_a_request_and_a_console_error(
    browser: Any, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.html"
    bad.write_text('<img src="http://example.invalid/x.png"><script>console.error("boom")'
                   "</script>", encoding="utf-8")  # fmt: skip
    found = problems(browser.load(bad.as_uri(), 390), bad.as_uri())
    assert any(p.startswith("request http://example.invalid/") for p in found), found
    assert any("boom" in p for p in found), found
    # and with the page's policy, the blocked load is still reported (as an error)
    blocked = tmp_path / "blocked.html"
    blocked.write_text(f'<meta http-equiv="Content-Security-Policy" content="{CSP}">'
                       '<img src="http://example.invalid/y.png">', encoding="utf-8")  # fmt: skip
    found = problems(browser.load(blocked.as_uri(), 390), blocked.as_uri())
    assert any("Content Security Policy" in p for p in found), found
