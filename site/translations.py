"""Keep the zh and ja translations true to the English pages (site/sitegen/i18n.py says how).

usage: python site/translations.py --check   list stale, missing and structurally different
                                             translations, and broken links (exit 1 if any)
       python site/translations.py --stamp   write into each translation's stamp the hash of
                                             its English page's prose, as it is now

Stamp a translation only once it says what the English says: the stamp is the promise
that it does. Run python site/readme_blocks.py too, for the translations' generated blocks.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))

from sitegen import i18n  # noqa: E402


def main(argv: list[str]) -> int:
    if argv not in (["--check"], ["--stamp"]):
        print("\n".join(__doc__.strip().splitlines()[2:6]), file=sys.stderr)
        return 2
    if argv == ["--stamp"]:
        for pair in i18n.pairs(REPO):
            new = i18n.stamped(REPO, pair)
            if new is not None and new != pair.path.read_text(encoding="utf-8"):
                pair.path.write_text(new, encoding="utf-8")
                print(f"stamped: {pair.path.relative_to(REPO).as_posix()}")
        return 0
    problems = i18n.problems(REPO)
    for problem in problems:
        print(problem)
    print(f"translations: {len(i18n.pairs(REPO))} pages ({', '.join(i18n.LANGS)}), {len(problems)} problems",
          file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BrokenPipeError:  # python site/translations.py --check | head: the reader left
        sys.stderr.close()
        sys.exit(1)
