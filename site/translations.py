"""Keep the zh and ja translations true to the English pages (site/sitegen/i18n.py says how).

usage: python site/translations.py --check             list stale, missing and structurally different
                                                       translations, and broken links (exit 1 if any)
       python site/translations.py --stamp [PAGE...]   write into each translation's stamp (or only the
                                                       translations named) the hash of its English
                                                       page's prose, as it is now

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
    if argv != ["--check"] and argv[:1] != ["--stamp"]:
        print("\n".join(__doc__.strip().splitlines()[2:7]), file=sys.stderr)
        return 2
    if argv[0] == "--stamp":
        named = {Path(page).resolve() for page in argv[1:]}
        pairs = [pair for pair in i18n.pairs(REPO) if not named or pair.path.resolve() in named]
        unknown = named - {pair.path.resolve() for pair in pairs}
        if unknown:
            print(f"error: not a translation of an English page: {', '.join(sorted(map(str, unknown)))}", file=sys.stderr)
            return 2
        for pair in pairs:
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
