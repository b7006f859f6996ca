"""Write the READMEs' generated blocks, and their translations' (site/sitegen/blocks.py says which, and from what).

usage: python site/readme_blocks.py           rewrite every README whose blocks are stale
       python site/readme_blocks.py --check   only list them (exit 1 if any)

Run it after changing a quiz.yaml, a lesson's harness module or its ``# lesson:`` markers,
an exercise solution, s19's pinned run, site/docs/glossary.md or a suite record in
bench/records/; tests/test_readmes.py fails until the READMEs match.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path[:0] = [str(HERE), str(REPO / "exercises"), str(REPO)]

from sitegen import blocks  # noqa: E402
from sitegen import code as codeview  # noqa: E402


def main(argv: list[str]) -> int:
    check = argv == ["--check"]
    if argv and not check:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    found = codeview.Mechanisms.find(REPO)
    changed = []
    for path in blocks.readmes(REPO):
        new = blocks.refresh(REPO, path, found)
        if new != path.read_text(encoding="utf-8"):
            changed.append(path.relative_to(REPO).as_posix())
            if not check:
                path.write_text(new, encoding="utf-8")
    for rel in changed:
        print(f"{'stale' if check else 'wrote'}: {rel}")
    return 1 if check and changed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
