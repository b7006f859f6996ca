"""Look at the built site in headless Chromium: diagrams render, nothing leaves 127.0.0.1.

usage: python site/browser_check.py [SITE_DIR [SHOT_DIR]]
       (defaults: .site-build at the repo root, and /tmp/site-shots)

Serves SITE_DIR on 127.0.0.1 (a free port), then for the home page and every lesson page:
- loads it in Chromium with a net log, and fails if the page asked for any URL outside the
  local server (host resolution outside 127.0.0.1 is also blocked, so nothing goes out);
- if the page has a mermaid block, fails unless Material replaced every <pre class="mermaid">
  with a rendered diagram (a <div class="mermaid"> whose SVG lives in a shadow root);
- parses every mermaid block of the site with the vendored mermaid.parse in one page, and
  fails on a syntax error (mermaid would otherwise draw an error picture, which the DOM
  check above cannot see inside the shadow root).
Screenshots of the home page and the first lesson with a diagram go to SHOT_DIR; look at them.

Needs Debian's chromium (apt-get install -y chromium). check_offline.py is the browserless
check for CI; this one is for a person, or CI where chromium is installed.
"""

from __future__ import annotations

import functools
import html
import json
import re
import subprocess
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

CHROMIUM = [
    "chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--window-size=1280,2000",
    "--virtual-time-budget=8000",  # let mermaid finish before the DOM dump or screenshot
]


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def chromium(url: str, *flags: str) -> str:
    with tempfile.TemporaryDirectory() as profile:
        run = subprocess.run([*CHROMIUM, f"--user-data-dir={profile}", *flags, url],
                             capture_output=True, text=True, timeout=120)
    return run.stdout


def page_requests(netlog: Path, origin: str) -> list[str]:
    """URLs the page itself asked for (the browser's own background requests excluded)."""
    log = json.loads(netlog.read_text())
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    return [e["params"]["url"] for e in log["events"]
            if e["type"] == start and e.get("params", {}).get("initiator") == origin]


def check_page(origin: str, rel: str, shots: Path, shoot: bool) -> tuple[list[str], bool]:
    """Problems found on one page, and whether a screenshot of its diagram was taken."""
    url = f"{origin}/{rel}"
    problems, shot = [], False
    with tempfile.TemporaryDirectory() as tmp:
        netlog = Path(tmp) / "net.json"
        dom = chromium(url, f"--log-net-log={netlog}", "--dump-dom")
        problems += [f"{rel}: requested {u}" for u in page_requests(netlog, origin)
                     if not u.startswith(origin + "/")]
    if 'class="mermaid"' in dom or "class='mermaid'" in dom:
        if '<pre class="mermaid"' in dom:
            problems.append(f"{rel}: a mermaid block was left as text")
        elif shoot:
            chromium(url, f"--screenshot={shots / rel.replace('/', '_')}.png")
            shot = True
    if not dom:
        problems.append(f"{rel}: chromium returned no DOM")
    return problems, shot


_BLOCK = re.compile(r'<pre class="mermaid"><code>(.*?)</code></pre>', re.S)
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
    return [line.removeprefix("ERROR ") for line in html.unescape(dom).splitlines() if line.startswith("ERROR ")]


def main(argv: list[str]) -> int:
    repo = Path(__file__).resolve().parent.parent
    site = Path(argv[0]) if argv else repo / ".site-build"
    shots = Path(argv[1]) if len(argv) > 1 else Path("/tmp/site-shots")
    shots.mkdir(parents=True, exist_ok=True)
    handler = functools.partial(QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    origin = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        chromium(f"{origin}/index.html", f"--screenshot={shots / 'index'}.png")
        problems, shot_taken = [], False
        lessons = sorted(p.relative_to(site).as_posix() for p in (site / "lessons").glob("*.html"))
        for page in ["index.html", *lessons]:
            found, shot = check_page(origin, page, shots, shoot=not shot_taken)
            shot_taken = shot_taken or shot
            problems += found
        problems += check_mermaid_syntax(site, origin)
    finally:
        server.shutdown()
    for problem in problems:
        print(problem)
    print(f"browser_check: {len(problems)} problems; screenshots in {shots}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
