"""The HTML report in a real browser (headless Chromium driven by Playwright).

A small report (one LaTeX erratum and one verified claim per paper, run for real, and a section
with math and a plot) is served on 127.0.0.1 and checked as a reader sees it: formulas laid out
as MathML (a fraction's numerator above its denominator, no raw ``\\frac`` text), errata first,
evidence opening on a click, per-paper pages, images decoded, no request leaving the machine.

Chromium comes from the system (Debian's ``chromium``; ``.ci/run`` installs it) or
``$SYMCHECK_CHROMIUM``. Without it the test skips, unless ``SYMCHECK_REQUIRE_BROWSER=1`` (set by
CI), where it fails. Screenshots go to ``$SYMCHECK_SCREENSHOT_DIR`` when set (else tmp).
"""

import functools
import http.server
import json
import os
import re
import shutil
import threading
import types
from pathlib import Path

import pytest

from symcheck.claims import all_claims
from symcheck.report import build_report
from symcheck.report.math import is_latex
from symcheck.report.papers import paper_of, paper_title

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync"]


def _chromium() -> str | None:
    return os.environ.get("SYMCHECK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


def _require_browser():
    try:
        from playwright.sync_api import sync_playwright  # noqa: F401
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[test]')"
    else:
        missing = None if _chromium() else "no chromium executable (apt-get install chromium)"
    if missing:
        if os.environ.get("SYMCHECK_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser test required but {missing}")
        pytest.skip(missing)


def _claims():
    """Per paper: the first erratum with LaTeX forms and the first verified claim."""
    chosen = {}
    for c in all_claims():
        key = (paper_of(c.id), c.kind)
        if key not in chosen and (c.kind == "verify" or is_latex(c.printed_form)):
            chosen[key] = c
    return sorted(chosen.values(), key=lambda c: c.id)


def _section():
    def render(ctx):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(8, 4))
        ax.plot([1, 2, 3], [3, 1, 2], "o-")
        return ("Inline math: $\\frac{a}{b} + \\sigma_1^2$.\n\n| k | value |\n|---|---|\n| 2 | 0.5 |\n\n"
                f"![a plot]({ctx.save_figure(fig, 'browser_plot')})")

    mod = types.ModuleType("symcheck.report.sections.browser_demo")
    mod.ORDER, mod.TITLE, mod.render = 1, "Browser demo", render
    return mod


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """URL of a freshly built report served on 127.0.0.1, and its claim results."""
    _require_browser()
    out = build_report(tmp_path_factory.mktemp("report"), claims=_claims(), sections=[_section()], progress=False)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(out)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/", json.loads((out / "claims.json").read_text())
    server.shutdown()


@pytest.fixture(scope="module")
def browser(served):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=_chromium(), args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, served):
    """A page that records every request and every failure; the test ends by checking none left the host."""
    base, _ = served
    ctx = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = ctx.new_page()
    pg.problems = []
    pg.on("request", lambda r: r.url.startswith(base) or pg.problems.append(f"external request {r.url}"))
    pg.on("response", lambda r: r.status < 400 or pg.problems.append(f"HTTP {r.status} {r.url}"))
    pg.on("console", lambda m: m.type != "error" or pg.problems.append(f"console error {m.text}"))
    pg.on("pageerror", lambda e: pg.problems.append(f"page error {e}"))
    yield pg
    problems = pg.problems
    ctx.close()
    assert problems == []


def _screenshot(page, name, tmp_path):
    folder = Path(os.environ.get("SYMCHECK_SCREENSHOT_DIR", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / name), full_page=True)


def _assert_math_rendered(page, scope):
    boxes = page.eval_on_selector_all(f"{scope} math", "els => els.map(e => [e.getBoundingClientRect().width, "
                                      "e.getBoundingClientRect().height])")
    assert boxes and all(w > 0 and h > 0 for w, h in boxes)
    # MathML layout, not inline text: a fraction's numerator sits above its denominator
    num_bottom, den_top = page.eval_on_selector(
        f"{scope} mfrac", "f => [f.children[0].getBoundingClientRect().bottom, f.children[1].getBoundingClientRect().top]")
    assert num_bottom <= den_top + 1
    visible = page.inner_text(scope)
    assert re.search(r"\\[A-Za-z]+", visible) is None, "raw LaTeX is visible"


def test_index_errata_first_with_rendered_math(page, served, tmp_path):
    base, results = served
    page.goto(base + "index.html")
    assert page.eval_on_selector_all("main h2", "hs => hs.map(h => h.textContent)")[0] == "Errata"
    errata = [r["id"] for r in results if r["status"] == "erratum"]
    assert len(errata) >= 3
    assert page.eval_on_selector_all("table.errata tr.claim", "rs => rs.map(r => r.id)") == errata
    assert page.locator("table.errata math").count() == 2 * len(errata)
    _assert_math_rendered(page, "table.errata")
    _screenshot(page, "index.png", tmp_path)


def test_evidence_opens_on_click(page, served):
    base, results = served
    first = next(r for r in results if r["status"] == "erratum")
    page.goto(base + "index.html")
    row = page.locator(f'tr[id="{first["id"]}"]')
    body = row.locator(".evidence-body")
    assert not body.is_visible()
    row.locator("summary").click()
    assert body.is_visible()
    text = body.inner_text()
    assert first["statement"] in text and f"symcheck check {first['id']}" in text
    assert first["detail"][:60] in text


def test_paper_pages(page, served, tmp_path):
    base, results = served
    page.goto(base + "index.html")
    papers = sorted({paper_of(r["id"]) for r in results})
    for prefix in papers:
        page.locator("nav").get_by_role("link", name=prefix, exact=True).click()
        page.wait_for_load_state()
        assert page.url == f"{base}paper-{prefix}.html"
        assert page.inner_text("h1") == paper_title(prefix)
        ids = page.eval_on_selector_all("tr.claim", "rs => rs.map(r => r.id)")
        assert sorted(ids) == sorted(r["id"] for r in results if paper_of(r["id"]) == prefix)
        headings = page.eval_on_selector_all("main h2", "hs => hs.map(h => h.textContent)")
        assert headings == [h for h in ("Errata", "Verified claims") if h in headings] and headings
        if "Errata" in headings:
            _assert_math_rendered(page, "table.errata")
    _screenshot(page, f"paper-{papers[-1]}.png", tmp_path)


def test_section_page_images_and_math(page, served, tmp_path):
    base, _ = served
    page.goto(base + "index.html")
    page.locator("nav").get_by_role("link", name="browser_demo").click()
    page.wait_for_load_state()
    widths = page.eval_on_selector_all(".section-body img", "is => is.map(i => i.complete ? i.naturalWidth : 0)")
    assert widths and all(w > 0 for w in widths)
    _assert_math_rendered(page, ".section-body")
    assert page.locator(".section-body table td").first.inner_text() == "2"
    _screenshot(page, "section.png", tmp_path)
