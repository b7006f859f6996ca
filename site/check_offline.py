"""Fail if a built site would fetch anything from another host when a page is viewed.

usage: python site/check_offline.py [SITE_DIR]    (default: .site-build at the repo root)

Runs without a browser, for CI; it complements, not replaces, a look in headless Chromium.
It reads every .html, .js and .css file under SITE_DIR and reports, with file and URL:

- HTML: an absolute or protocol-relative URL in an attribute that loads something
  (script/img/iframe/source/video/audio/embed/object src, srcset, poster, data; <link href>
  with a loading rel such as stylesheet, icon, preload, preconnect), in a style attribute
  or <style> element, or in an inline <script> (checked as JS below).
  Plain hyperlinks (<a href>, <link rel=canonical>) are not fetches and are ignored.
- CSS: url(...) and @import of an absolute or protocol-relative URL.
- JS: an http(s) URL that looks loadable: on a CDN or font host, ending in a resource
  extension (.js .css .woff2 .png .json ...), or right after a loading call such as
  import( fetch( importScripts( or .src=. Other URLs in scripts (license banners, links in
  error messages, XML namespaces, github.com source pages) are text, never requested, and
  are not reported.

ALLOWED lists the only exceptions, each with the reason it is never fetched here.
Exit status: 0 clean, 1 if anything was reported, 2 on bad usage.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

ALLOWED = {
    # Material's bundle loads mermaid from this CDN only while the global `mermaid` is
    # undefined; mkdocs.yml loads the vendored copy on every page (checked in main()).
    "https://unpkg.com/mermaid@11/dist/mermaid.min.js",
    # Material's polyfill for browsers without ResizeObserver (none since 2020).
    "https://unpkg.com/resize-observer-polyfill",
}
VENDORED_MERMAID = "assets/vendor/mermaid/mermaid.min.js"
CDN_HOSTS = re.compile(
    r"(^|\.)(unpkg\.com|jsdelivr\.net|cdnjs\.cloudflare\.com|googleapis\.com|gstatic\.com"
    r"|esm\.sh|skypack\.dev|jquery\.com|googletagmanager\.com|google-analytics\.com"
    r"|cloudflare\.com|bootstrapcdn\.com|fontawesome\.com|typekit\.net)$"
)
# Web pages people open, never loaded by a script (e.g. github.com/x/y/blob/main/a.js).
PAGE_HOSTS = {"github.com"}
RESOURCE_EXT = re.compile(r"\.(m?js|css|woff2?|ttf|otf|eot|png|jpe?g|gif|svg|webp|ico|json|wasm)$")
LOADER_BEFORE = re.compile(r"(import\s*\(|importScripts\s*\(|fetch\s*\(|Worker\s*\(|\.src\s*=|href\s*=|url\s*\()\s*['\"`]?$")
JS_URL = re.compile(r"https?://([A-Za-z0-9.-]+)(/[^\s'\"`)<>\\]*)?")
EXTERNAL = re.compile(r"^\s*(https?:)?//", re.I)
CSS_URL = re.compile(r"(?:url\(\s*|@import\s+)['\"]?((?:https?:)?//[^'\")\s]+)", re.I)
LOADING_RELS = {"stylesheet", "icon", "shortcut", "apple-touch-icon", "mask-icon", "manifest",
                "preload", "prefetch", "preconnect", "dns-prefetch", "modulepreload"}
SRC_TAGS = {"script", "img", "iframe", "frame", "embed", "source", "video", "audio", "track", "input"}


def js_urls(text: str) -> list[str]:
    found = []
    for match in JS_URL.finditer(text):
        host, path = match.group(1).lower(), (match.group(2) or "").split("?")[0]
        if (CDN_HOSTS.search(host) or (RESOURCE_EXT.search(path) and host not in PAGE_HOSTS)
                or LOADER_BEFORE.search(text[max(0, match.start() - 20):match.start()])):
            found.append(match.group(0))
    return found


def css_urls(text: str) -> list[str]:
    return CSS_URL.findall(text)


class PageScanner(HTMLParser):
    """Collects the external URLs an HTML page would load, and its script srcs."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[str] = []
        self.scripts: list[str] = []
        self._in = None  # "script" or "style" while inside an inline one

    def handle_starttag(self, tag, attrs):
        attr = {k: v or "" for k, v in attrs}
        loads = []
        if tag in SRC_TAGS:
            loads += [attr.get("src", ""), attr.get("poster", "")]
            loads += [part.split()[0] for part in attr.get("srcset", "").split(",") if part.strip()]
        if tag == "object":
            loads.append(attr.get("data", ""))
        if tag in {"image", "use"}:  # SVG
            loads += [attr.get("href", ""), attr.get("xlink:href", "")]
        if tag == "link" and LOADING_RELS & set(attr.get("rel", "").lower().split()):
            loads.append(attr.get("href", ""))
        self.urls += [u for u in loads if EXTERNAL.match(u)]
        self.urls += css_urls(attr.get("style", ""))
        if tag == "script":
            self.scripts.append(attr.get("src", ""))
        self._in = tag if tag in {"script", "style"} and not attr.get("src") else None

    def handle_endtag(self, tag):
        self._in = None

    def handle_data(self, data):
        if self._in == "script":
            self.urls += js_urls(data)
        elif self._in == "style":
            self.urls += css_urls(data)


def scan(site: Path) -> list[str]:
    problems = []
    for path in sorted(site.rglob("*")):
        if path.suffix not in {".html", ".js", ".css"} or not path.is_file():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        rel = path.relative_to(site).as_posix()
        if path.suffix == ".html":
            page = PageScanner()
            page.feed(text)
            urls = page.urls
            bundle = any("assets/javascripts/bundle." in s for s in page.scripts)
            if bundle and not any(s.endswith(VENDORED_MERMAID) for s in page.scripts):
                problems.append(f"{rel}: loads Material's bundle but not {VENDORED_MERMAID}, "
                                "so mermaid would come from a CDN")
        else:
            urls = js_urls(text) if path.suffix == ".js" else css_urls(text)
        problems += [f"{rel}: would fetch {url}" for url in sorted(set(urls) - ALLOWED)]
    return problems


def main(argv: list[str]) -> int:
    if len(argv) > 1:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    site = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / ".site-build"
    if not (site / "index.html").is_file():
        print(f"check_offline: no built site at {site} (index.html missing)", file=sys.stderr)
        return 2
    problems = scan(site)
    for problem in problems:
        print(problem)
    count = sum(1 for p in site.rglob("*") if p.suffix in {".html", ".js", ".css"})
    print(f"check_offline: {count} files checked, {len(problems)} external fetches found")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
