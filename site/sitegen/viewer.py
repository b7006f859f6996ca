"""The step-through viewer's place on a lesson page, with the pinned files it replays.

The page gets an empty ``<div class="mcp-viewer">`` that ``assets/viewer.js`` fills, and
a ``<script type="application/json">`` holding the pinned files of the lesson exactly as
they are in tests/snapshots/sNN/ (the same bytes the snapshot tests compare): for each
case, its ``.transcript`` and, when it has one, its ``.frames``. Embedding them in the
page is what lets the viewer work offline and from ``file://``, where a script may not
fetch another file. The viewer parses the text itself (see viewer.js).
"""

from __future__ import annotations

import html
import json
from pathlib import Path


def cases(snapshots: Path) -> list[dict[str, str]]:
    """Every case with a transcript, default first: {name, transcript, frames}."""
    found = []
    for path in sorted(snapshots.glob("*.transcript"), key=lambda p: (p.stem != "default", p.stem)):
        frames = path.with_suffix(".frames")
        found.append({"name": path.stem, "transcript": path.read_text(encoding="utf-8"),
                      "frames": frames.read_text(encoding="utf-8") if frames.is_file() else ""})
    return found


def block(lesson: str, snapshots: Path) -> str | None:
    """The viewer's markup for one lesson, or None when nothing is pinned yet."""
    found = cases(snapshots)
    if not found:
        return None
    data = json.dumps({"lesson": lesson, "source": f"tests/snapshots/{lesson}/", "cases": found}, ensure_ascii=False)
    data = data.replace("</", "<\\/")  # the JSON must not close its <script>
    return (f'<div class="mcp-viewer" data-lesson="{html.escape(lesson)}">'
            '<p class="mcp-viewer__fallback">The step-through viewer needs JavaScript. '
            'The same pinned run is shown in full under "Pinned run" below.</p></div>\n'
            f'<script type="application/json" class="mcp-viewer-data">{data}</script>')
