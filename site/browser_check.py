"""Look at the built site in headless Chromium, as a reader would, at 1280 px and at 390 px.

usage: python site/browser_check.py [SITE_DIR [SHOT_DIR]]
       (defaults: .site-build at the repo root, and /tmp/site-shots)
       python site/browser_check.py --self-check
       (the probe on a page made to break a word and scroll sideways: exit 0 if it says so)

Serves SITE_DIR on 127.0.0.1 (a free port), and fails, naming page and width, if:

- a page asks for any URL outside the local server (each page is loaded with a net log;
  host resolution outside 127.0.0.1 is blocked too, so nothing goes out);
- a mermaid block is not drawn (still a <pre class="mcp-mermaid">, or drawn with an error),
  or any mermaid block of the site does not parse (the vendored mermaid.parse, in one page);
- at 1280 px or at 390 px wide (each page in an iframe of that width, in one probe page):
  - the page scrolls sideways;
  - a line of code, diff, transcript or frames is cut off (a <pre><code> wider than its
    box), with every tab and every folded solution opened first, so none escapes;
  - a diagram's text is under 11 px at its default size (font size times the SVG's scale);
  - a diagram breaks a word across two lines (mermaid's wrap cuts a word too long for its
    box with a hyphen, "mode-" then "l"; a hyphen the diagram's source has is fine);
  - a diagram needs a sideways scroll to be read (its box is wider than the column: at
    390 px the column is 356 px, and course.js draws a wide diagram again, compact);
  - a wrapped line of code continues left of where its own text starts (a hanging indent
    that would put a Python continuation left of its block), or, for a line indented past
    45 % of the screen's width, left of that;
  - a character of the page's text is drawn as tofu: no font on the machine has it, so the
    reader sees an empty box (each character is drawn on a canvas in the page's own font and
    compared with an unassigned code point, which no font has); CI installs Debian's
    fonts-noto-cjk for the zh and ja pages, as a reader's system has its CJK fonts;
  - on a lesson page, the viewer's buttons scroll out of view while its bottom is on screen;
  - on a lesson page, the step-through viewer is missing, or does not step: next, next,
    back, last (all frames shown), first, and "pool change" must land on a tools/pool event;
- from file:// (no server), a lesson page's viewer and diagrams do not come up;
- the search index (what a search shows: a page or section title, then its text) has an
  entry without a title, or a text in which two code-tab labels of a page run together
  ("code.pypool.py"). This is read from search/search_index.json, not typed into the
  search box: Material's search worker does not start under headless Chromium's virtual
  time.

Every page means every page of every language (English at the root, /zh/, /ja/).
Screenshots of the home page, the start page and three lesson pages, and of the home page
and s19 in zh and ja, at both widths go to SHOT_DIR; look at them. Needs Debian's chromium (apt-get install -y chromium).
check_offline.py is the browserless check for CI; this one is for a person, or CI where
chromium is installed.
"""

from __future__ import annotations

import functools
import html
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

WIDTHS = (1280, 390)
MIN_DIAGRAM_TEXT_PX = 11
SHOT_PAGES = ("index.html", "start.html", "lessons/s22.html", "lessons/s26.html", "lessons/s31.html",
              "zh/index.html", "zh/lessons/s19.html", "ja/index.html", "ja/lessons/s19.html")
LESSON_PAGE = re.compile(r"^(?:(?:zh|ja)/)?lessons/")  # a lesson page, in any language
CHROMIUM = [
    "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--hide-scrollbars", "--force-device-scale-factor=1",
]


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def chromium(url: str, *flags: str, budget: int = 8000, size: str = "1280,2000", timeout: int = 300) -> str:
    """Chromium's stdout for one page; "" if it took longer than ``timeout`` (then it and its children are killed)."""
    with tempfile.TemporaryDirectory() as profile:
        process = subprocess.Popen([*CHROMIUM, f"--window-size={size}", f"--virtual-time-budget={budget}",
                                    f"--user-data-dir={profile}", *flags, url],
                                   stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, start_new_session=True)
        try:
            out, _ = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the browser's own children too (zygote, renderers, gpu)
            process.communicate()
            return ""
        finally:
            try:
                os.killpg(process.pid, signal.SIGKILL)  # a renderer left behind would hold the profile folder
            except ProcessLookupError:
                pass
    return out


def page_requests(netlog: Path, origin: str) -> list[str]:
    """URLs the page itself asked for (the browser's own background requests excluded)."""
    log = json.loads(netlog.read_text())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [e["params"]["url"] for e in log["events"]
            if e["type"] == start and e.get("params", {}).get("initiator") == origin]


def check_requests(origin: str, rel: str) -> list[str]:
    """Load one page with a net log: anything it asked for outside the origin, and diagrams left undrawn."""
    with tempfile.TemporaryDirectory() as tmp:
        netlog = Path(tmp) / "net.json"
        dom = chromium(f"{origin}/{rel}", f"--log-net-log={netlog}", "--dump-dom")
        problems = [f"{rel}: requested {u}" for u in page_requests(netlog, origin) if not u.startswith(origin + "/")]
    if not dom:
        problems.append(f"{rel}: chromium returned no DOM")
    if '<pre class="mcp-mermaid"' in dom:
        problems.append(f"{rel}: a mermaid block was left as text")
    return problems


_BLOCK = re.compile(r'<pre class="mcp-mermaid"><code>(.*?)</code></pre>', re.S)
_PARSE_PAGE = """<!doctype html><meta charset="utf-8"><pre id="out"></pre>
<script src="assets/vendor/mermaid/mermaid.min.js"></script>
<script>
(async () => {
  const blocks = %s, out = [];
  for (const [where, text] of blocks) {
    try { await mermaid.parse(text); out.push("ok " + where); }
    catch (e) { out.push("ERROR " + where + ": " + String(e.message || e).split("\\n")[0]); }
  }
  document.getElementById("out").textContent = out.join("\\n") + "\\nDONE";
})();
</script>"""


def check_mermaid_syntax(site: Path, origin: str) -> list[str]:
    """Every mermaid block in the built site, parsed by the vendored mermaid in one page."""
    blocks = [(f"{page.relative_to(site).as_posix()}#{i}", html.unescape(text))
              for page in sorted(site.rglob("*.html"))
              for i, text in enumerate(_BLOCK.findall(page.read_text(encoding="utf-8")), 1)]
    probe = site / "_mermaid_parse.html"
    probe.write_text(_PARSE_PAGE % json.dumps(blocks), encoding="utf-8")
    try:
        dom = chromium(f"{origin}/{probe.name}", "--dump-dom")
    finally:
        probe.unlink()
    if "DONE" not in dom:
        return ["mermaid syntax check did not finish"]
    return [line.removeprefix("ERROR ") for line in _out(dom).splitlines() if line.startswith("ERROR ")]


# The layout probe: loads each page in a same-origin iframe of the given width and measures it.
_PROBE_PAGE = """<!doctype html><meta charset="utf-8"><body style="margin:0"><pre id="out"></pre>
<script>
const PAGES = %(pages)s, WIDTH = %(width)d, MIN_PX = %(min_px)d, out = [];
const sleep = ms => new Promise(r => setTimeout(r, ms));
function say(rel, text) { out.push("PROBLEM " + rel + " @" + WIDTH + "px: " + text); }
function snippet(text) { return JSON.stringify(text.split("\\n").reduce((a, b) => b.length > a.length ? b : a, "").slice(0, 70)); }

async function until(test, what, rel) {
  for (let i = 0; i < 400; i++) { if (test()) return true; await sleep(50); }
  say(rel, "timed out waiting for " + what); return false;
}

async function viewer(rel, doc, win) {
  const v = doc.querySelector(".mcp-viewer");
  if (!v) { say(rel, "no step-through viewer"); return; }
  if (!await until(() => v.hasAttribute("data-steps") || v.hasAttribute("data-error"), "the viewer", rel)) return;
  if (v.hasAttribute("data-error")) { say(rel, "viewer failed: " + v.getAttribute("data-error")); return; }
  const step = () => Number(v.getAttribute("data-step")), steps = Number(v.getAttribute("data-steps"));
  const click = a => v.querySelector('[data-action="' + a + '"]').click();
  const data = JSON.parse(doc.querySelector("script.mcp-viewer-data").textContent).cases[0];
  const frames = data.frames ? data.frames.split("\\n").filter(Boolean).length : 0;
  if (steps < 3) { say(rel, "viewer has only " + steps + " steps"); return; }
  const seen = [step()];
  click("next"); seen.push(step()); click("next"); seen.push(step()); click("back"); seen.push(step());
  if (seen.join() !== "0,1,2,1") say(rel, "viewer next/next/back went " + seen.join(" -> ") + ", not 0 -> 1 -> 2 -> 1");
  click("last");
  if (step() !== steps - 1) say(rel, "viewer 'last' stopped at " + step() + " of " + steps);
  if (Number(v.getAttribute("data-frames-shown")) !== frames) say(rel, "viewer's last step shows " + v.getAttribute("data-frames-shown") + " of " + frames + " frames");
  click("first");
  if (step() !== 0) say(rel, "viewer 'first' went to " + step());
  click("pool-next");
  const current = v.querySelector(".mcp-viewer__event.is-current");
  if (!current || !["tools", "pool"].includes(current.getAttribute("data-kind"))) say(rel, "'pool change' landed on " + (current && current.textContent.slice(0, 40)));
  for (const box of v.querySelectorAll(".mcp-viewer__events, .mcp-viewer__frames, .mcp-viewer__pool"))
    if (box.scrollWidth > box.clientWidth + 1) say(rel, "a viewer pane scrolls sideways");
  // the buttons stay in view while the viewer's bottom is on screen
  const bar = v.querySelector(".mcp-viewer__bar"), box = v.getBoundingClientRect();
  win.scrollTo(0, win.scrollY + box.bottom - win.innerHeight + 10);
  await sleep(100);
  const b = bar.getBoundingClientRect(), hit = doc.elementFromPoint(b.left + 4, b.top + b.height / 2);
  if (b.top < 0 || b.bottom > win.innerHeight || !bar.contains(hit))
    say(rel, "the viewer's buttons are out of view at the viewer's bottom (top " + Math.round(b.top) + " px)");
  win.scrollTo(0, 0);
}

function brokenWords(rel, doc) {
  // A diagram's text lines, in order (a <text> of <tspan>s is one line per tspan). Where
  // one line ends inside a word and the next goes on with it, the word was broken: mermaid's
  // own wrap cuts a word too long for its box with a hyphen ("mode-" | "l"). A hyphen the
  // source has there ("needs-" | "auth") is a place to break, not a broken word.
  for (const [i, figure] of [...doc.querySelectorAll("figure.mcp-diagram")].entries()) {
    const source = figure.getAttribute("data-source") || "";
    const lines = [];
    for (const text of figure.querySelectorAll("svg text")) {
      const spans = [...text.querySelectorAll("tspan")].filter(s => !s.querySelector("tspan"));
      for (const part of (spans.length ? spans : [text])) if (part.textContent.trim()) lines.push(part.textContent.trim());
    }
    const broken = [];
    for (let n = 0; n + 1 < lines.length; n++) {
      const left = lines[n].match(/([A-Za-z0-9]+)(-?)$/), right = lines[n + 1].match(/^[A-Za-z0-9]+/);
      if (!left || !right) continue;
      const word = left[1] + right[0], whole = new RegExp("(^|[^A-Za-z0-9])" + word + "($|[^A-Za-z0-9])");
      if (left[2] ? !source.includes(left[1] + "-" + right[0]) : whole.test(source))
        broken.push(JSON.stringify(lines[n].slice(-24) + " | " + lines[n + 1].slice(0, 24)));
    }
    if (broken.length) say(rel, "diagram " + (i + 1) + " breaks a word across lines: " + broken.slice(0, 3).join(", ")
                               + (broken.length > 3 ? " and " + (broken.length - 3) + " more" : ""));
  }
}

function tofu(rel, doc, win) {
  // Each distinct character of the page's text beyond ASCII, drawn in the page's font, against an
  // unassigned code point (U+0378): where the two draw the same pixels, no font had the character.
  const chars = [...new Set([...doc.body.innerText].filter(c => c.codePointAt(0) > 0x7f && /\S/.test(c)))];
  if (!chars.length) return;
  const font = win.getComputedStyle(doc.querySelector("article") || doc.body).fontFamily;
  const canvas = doc.createElement("canvas"), size = 40;
  canvas.width = canvas.height = size;
  const ctx = canvas.getContext("2d", { willReadFrequently: true });
  const draw = c => { ctx.clearRect(0, 0, size, size); ctx.font = "28px " + font; ctx.fillText(c, 4, 30);
                      return ctx.getImageData(0, 0, size, size).data; };
  const none = draw("\u0378").slice();
  const same = a => { for (let i = 3; i < a.length; i += 4) if (a[i] !== none[i]) return false; return true; };
  const boxes = chars.filter(c => same(draw(c)));
  if (boxes.length) say(rel, boxes.length + " of " + chars.length + " characters drawn as tofu (no font has them): "
                             + JSON.stringify(boxes.slice(0, 12).join("")));
}

function honestIndent(rel, doc, win) {
  // A wrapped line's continuation starts at or right of the line's first non-blank character.
  let bad = 0;
  for (const line of doc.querySelectorAll("pre > code > span[id^='__span-']")) {
    if (!line.offsetParent || line.getClientRects().length === 0) continue;
    const style = getComputedStyle(line), height = parseFloat(style.lineHeight) || 16;
    if (line.getBoundingClientRect().height < height * 1.5) continue;  // not wrapped
    const walker = doc.createTreeWalker(line, NodeFilter.SHOW_TEXT);
    let start = null;
    for (let n = walker.nextNode(); n && !start; n = walker.nextNode()) {
      const i = n.data.search(/\S/);
      if (i >= 0) { const r = doc.createRange(); r.setStart(n, i); r.setEnd(n, i + 1); start = r.getBoundingClientRect(); }
    }
    if (!start) continue;
    const all = doc.createRange(); all.selectNodeContents(line);
    const rects = [...all.getClientRects()].filter(r => r.width > 0 && r.top > start.top + height / 2);
    if (!rects.length) continue;
    const left = Math.min(...rects.map(r => r.left));
    // a line indented past 45 percent of the screen's width continues there (course.css)
    const floor = Math.min(start.left, line.getBoundingClientRect().left + 0.45 * win.innerWidth);
    if (left < floor - 1 && bad++ < 3)
      say(rel, "a wrapped line continues " + Math.round(start.left - left) + " px left of its text: " + snippet(line.textContent));
  }
  if (bad > 3) say(rel, (bad - 3) + " more wrapped lines continue left of their text");
}


async function check(rel) {
  const frame = document.createElement("iframe");
  frame.style.cssText = "width:" + WIDTH + "px;height:900px;border:0";
  const loaded = new Promise(r => { frame.onload = r; });
  frame.src = rel;  // before it is in the document: no about:blank load to mistake for the page's
  document.body.appendChild(frame);
  await loaded;
  const win = frame.contentWindow, doc = frame.contentDocument;
  if (!win.location.pathname.endsWith("/" + rel)) { say(rel, "the probe loaded " + win.location.href + " instead"); frame.remove(); return; }
  await until(() => doc.documentElement.getAttribute("data-diagrams") === "done", "the diagrams", rel);
  for (const pre of doc.querySelectorAll("pre.mcp-mermaid")) say(rel, "a diagram was not drawn: " + (pre.getAttribute("data-error") || "no error given"));
  // diagram text at its default size
  for (const [i, svg] of [...doc.querySelectorAll("figure.mcp-diagram svg")].entries()) {
    const box = svg.getBoundingClientRect(), vb = svg.viewBox && svg.viewBox.baseVal;
    if (!box.width) continue;
    const scale = vb && vb.width ? box.width / vb.width : 1;
    let min = Infinity;
    for (const t of svg.querySelectorAll("text")) {
      if (!t.textContent.trim()) continue;
      min = Math.min(min, parseFloat(win.getComputedStyle(t).fontSize) * scale);
    }
    if (min < MIN_PX) say(rel, "diagram " + (i + 1) + ": text " + min.toFixed(1) + " px tall, under " + MIN_PX + " px");
  }
  brokenWords(rel, doc);
  tofu(rel, doc, win);
  for (const [i, scroll] of [...doc.querySelectorAll(".mcp-diagram__scroll")].entries())
    if (scroll.scrollWidth > scroll.clientWidth + 1)
      say(rel, "diagram " + (i + 1) + " needs a sideways scroll: " + scroll.scrollWidth + " px in a " + scroll.clientWidth + " px column");
  if (/^(?:(?:zh|ja)\/)?lessons\//.test(rel)) await viewer(rel, doc, win);
  // open every tab and every folded block, then look for lines cut off
  const style = doc.createElement("style");
  style.textContent = ".tabbed-set > .tabbed-content > .tabbed-block { display: block !important; }";
  doc.head.appendChild(style);
  for (const d of doc.querySelectorAll("details")) d.open = true;
  await sleep(50);
  honestIndent(rel, doc, win);
  let cut = 0;
  for (const code of doc.querySelectorAll("pre > code")) {
    if (!code.offsetParent) continue;
    if (code.scrollWidth > code.clientWidth + 1) { if (cut++ < 3) say(rel, "a code line is cut off: " + snippet(code.textContent)); }
  }
  if (cut > 3) say(rel, (cut - 3) + " more code blocks with lines cut off");
  const page = doc.documentElement;
  if (page.scrollWidth > win.innerWidth + 1 || doc.body.scrollWidth > win.innerWidth + 1)
    say(rel, "the page scrolls sideways: " + Math.max(page.scrollWidth, doc.body.scrollWidth) + " px wide in " + win.innerWidth);
  frame.remove();
}

(async () => {
  for (const rel of PAGES) {
    try { await check(rel); } catch (e) { say(rel, "probe error: " + e); }
    out.push("checked " + rel);
  }
  document.getElementById("out").textContent = out.join("\\n") + "\\nDONE";
})();
</script>"""


_LABELS = re.compile(r'<div class="tabbed-labels"[^>]*>(.*?)</div>', re.S)


def label_pairs(site: Path) -> list[str]:
    """Two neighbouring code-tab labels of a page, run together as text would run them ("code.pypool.py")."""
    pairs = set()
    for page in site.rglob("*.html"):
        for labels in _LABELS.findall(page.read_text(encoding="utf-8")):
            names = [html.unescape(re.sub(r"<[^>]+>", "", n)).strip() for n in re.findall(r"<label[^>]*>(.*?)</label>", labels, re.S)]
            pairs.update(a + b for a, b in zip(names, names[1:]) if a and b)
    return sorted(pairs)


def check_search_index(site: Path, pairs: list[str]) -> list[str]:
    """Every entry of the search index has a title, and no text of it runs two tab labels together."""
    index = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))
    problems = []
    for doc in index["docs"]:
        if not doc.get("title", "").strip():
            problems.append(f"search index: {doc['location']}: no title")
        run = next((p for p in pairs if p in doc.get("text", "")), None)
        if run:
            problems.append(f"search index: {doc['location']}: code-tab labels run together: {run!r}")
    return problems


def check_layout(site: Path, origin: str, pages: list[str], width: int, batch: int = 4) -> list[str]:
    """The probe, a few pages per browser, each batch bounded in time."""
    problems = []
    for start in range(0, len(pages), batch):
        some = pages[start:start + batch]
        probe = site / f"_layout_probe_{width}.html"
        probe.write_text(_PROBE_PAGE % {"pages": json.dumps(some), "width": width, "min_px": MIN_DIAGRAM_TEXT_PX},
                         encoding="utf-8")
        try:
            dom = chromium(f"{origin}/{probe.name}", "--dump-dom", budget=300000, size=f"{width + 40},1000", timeout=240)
        finally:
            probe.unlink()
        if "DONE" not in dom:
            problems.append(f"layout check at {width} px of {', '.join(some)} did not finish within 240 s")
            continue
        problems += [line.removeprefix("PROBLEM ") for line in _out(dom).splitlines() if line.startswith("PROBLEM ")]
    return problems


def _out(dom: str) -> str:
    """The text of the probe's <pre id="out"> (its first line shares a line with the tag in the dump)."""
    match = re.search(r'<pre id="out">(.*?)</pre>', dom, re.S)
    return html.unescape(match.group(1)) if match else ""


def check_file_url(site: Path, rel: str) -> list[str]:
    """The page opened from file://, with no server: its viewer steps and its diagrams are drawn."""
    dom = chromium((site / rel).resolve().as_uri(), "--dump-dom", budget=20000)
    problems = []
    if 'class="mcp-viewer"' in dom and "data-steps=" not in dom:
        problems.append(f"file://{rel}: the viewer did not start")
    if '<pre class="mcp-mermaid"' in dom:
        problems.append(f"file://{rel}: a diagram was not drawn")
    if 'class="mcp-diagram"' not in dom and "mcp-mermaid" in (site / rel).read_text(encoding="utf-8"):
        problems.append(f"file://{rel}: no diagram figure")
    return problems


def screenshots(site: Path, origin: str, shots: Path) -> None:
    """Each page at each width. Headless Chromium lays a page out at 500 px at least, whatever
    the window size, so a narrower width is shot through an iframe of exactly that width."""
    for rel in SHOT_PAGES:
        for width in WIDTHS:
            name = rel.replace("/", "_").removesuffix(".html")
            frame = site / f"_shot_{width}.html"
            frame.write_text(f'<!doctype html><body style="margin:0"><iframe src="{rel}" '
                             f'style="width:{width}px;height:2400px;border:0"></iframe>', encoding="utf-8")
            try:
                chromium(f"{origin}/{frame.name}", f"--screenshot={shots / f'{name}-{width}.png'}", budget=15000,
                         size=f"{width},2400")
            finally:
                frame.unlink()


# A page made to fail: a diagram whose word "model" is cut across two lines as mermaid's
# wrap cuts it, and a block wider than a phone. --self-check shows the probe finds both.
_BROKEN_PAGE = """<!doctype html><html data-diagrams="done"><meta charset="utf-8"><body>
<figure class="mcp-diagram" data-source="sequenceDiagram&#10;    A->>B: ask the model, then needs-auth">
<div class="mcp-diagram__scroll"><svg viewBox="0 0 220 90" width="220">
<text x="10" y="20" font-size="14">ask the mode-</text><text x="10" y="40" font-size="14">l, then needs-</text>
<text x="10" y="60" font-size="14">auth</text></svg></div></figure>
<div style="width:600px">wider than a phone</div><p>tofu: \u0378</p></body></html>"""


def self_check() -> int:
    """The layout probe on a page made to break a word and to scroll sideways: both must be reported."""
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp)
        (site / "broken.html").write_text(_BROKEN_PAGE, encoding="utf-8")
        handler = functools.partial(QuietHandler, directory=str(site))
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            problems = check_layout(site, f"http://127.0.0.1:{server.server_address[1]}", ["broken.html"], 390)
        finally:
            server.shutdown()
    for problem in problems:
        print(problem)
    wanted = {"breaks a word": '"ask the mode- | l, then needs-"', "scrolls sideways": "the page scrolls sideways",
              "tofu": 'characters drawn as tofu (no font has them): "\u0378"'}
    missed = [what for what, text in wanted.items() if not any(text in p for p in problems)]
    extra = [p for p in problems if "needs- | auth" in p]  # a hyphen the source has is not a broken word
    ok = not missed and not extra
    print(f"browser_check --self-check: {'ok' if ok else 'FAILED'}: " + (f"not reported: {', '.join(missed)}" if missed else
          f"reported a hyphen the source has: {extra}" if extra else "the broken word, the sideways scroll and the tofu are reported"))
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    if argv == ["--self-check"]:
        return self_check()
    repo = Path(__file__).resolve().parent.parent
    site = Path(argv[0]) if argv else repo / ".site-build"
    shots = Path(argv[1]) if len(argv) > 1 else Path("/tmp/site-shots")
    shots.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("*.html")
                   if p.name != "404.html" and not p.name.startswith("_"))
    lessons = [p for p in pages if LESSON_PAGE.match(p)]
    try:
        problems: list[str] = []
        for page in pages:
            problems += check_requests(origin, page)
        problems += check_mermaid_syntax(site, origin)
        problems += check_search_index(site, label_pairs(site))
        for width in WIDTHS:
            problems += check_layout(site, origin, pages, width)
        if lessons:
            problems += check_file_url(site, "lessons/s26.html" if "lessons/s26.html" in lessons else lessons[0])
        screenshots(site, origin, shots)
    finally:
        server.shutdown()
    for problem in problems:
        print(problem)
    print(f"browser_check: {len(pages)} pages at {' and '.join(f'{w} px' for w in WIDTHS)}, "
          f"{len(problems)} problems; screenshots in {shots}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
