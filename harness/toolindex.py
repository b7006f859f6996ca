"""A search index over tool definitions: BM25 over names, descriptions, search hints and parameters.

``harness.toolsearch`` (s36) keeps the tools of a large pool out of the model's context and
lets the model find them; this module is the finding. Each tool is one document with four
fields, each weighted by how much a word in it says about what the tool does::

    field         weight   from
    name          3        the tool's name, split on ``_ . -`` and camelCase (``mcp__tracker__create_issue``:
                           tracker, create, issue); the server's name is part of it
    hint          2        ``_meta["anthropic/searchHint"]``, the words a server adds for search
    params        1        the input schema's property names (``channel_id``: channel, id)
    description   1        the description

A request's first word, or a word before an article, is read as a verb when people use it as one:
"file a bug" creates, "email the report" sends (``VERBS``).

A query has one of three forms, as Claude Code's ToolSearch takes them:

    select:a,b            those tools by name (a full name, or a server's own name if one server has it)
    +slack post message   keywords, and every ``+word`` must be in the tool's name (server included)
    post a message        keywords only

Words are lower-cased, stop words dropped, a few suffixes cut (``issues``, ``creating``) and a
small table of synonyms folded onto one word (``remove`` and ``erase`` are ``delete``), on the
tools and on the query alike, so "erase the bucket" finds ``delete_bucket``.

The index is updated one server at a time (``update(server, docs)``, ``drop(server)``):
postings, document frequencies and lengths are adjusted for that server's tools only, so a
pool of 2,000 tools is never indexed again because one server listed anew. A search reads
the postings of the query's words only.

Not handled here: which tools are deferred, what a miss means (``harness.toolsearch``);
embeddings (this stays offline, deterministic and dependency-free); other languages than English.
"""

from __future__ import annotations

import bisect
import functools
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

WEIGHTS = {"name": 3.0, "hint": 2.0, "params": 1.0, "description": 1.0}
PREFIX = 0.5  # a query word that only begins a tool's word ("remind": "reminder") counts this much
SHORTEST = 4  # ... if it has at least this many letters
# BM25's constants: term-frequency saturation, and length normalization at 0.3, not the usual 0.75: tool
# descriptions are short, and at 0.75 a terse "Restore a ..." outranks the "Create a ..." a request asks for.
# Chosen on bench/toolsearch_queries.txt (at 0.75: recall@5 0.899; at 0.3: 0.910), so that set is not held out.
K1, B = 1.2, 0.3

STOP = frozenset("""a an and any are as at be by can do does for from get give i in into is it its me my of on or our
please show some that the their them this to up us we what which with you your all new one""".split()) - {"get", "new", "show"}
# Words a person uses for the same action or thing; each folds onto the first word of its group.
GROUPS = (
    ("delete", "remove", "erase", "destroy", "drop", "purge", "discard", "trash"),
    ("create", "make", "add", "new", "open", "declare", "raise", "register", "spin", "provision", "launch"),
    ("get", "fetch", "read", "show", "view", "retrieve", "lookup", "look", "see", "display", "check", "inspect", "describe"),
    ("list", "enumerate", "browse", "all"),
    ("search", "find", "query", "grep", "locate"),
    ("update", "edit", "change", "modify", "rename", "set", "patch"),
    ("send", "post", "message", "dm", "notify", "tell", "say"),
    ("upload", "put"),
    ("download", "pull"),
    ("stop", "halt", "shutdown", "pause", "kill"),
    ("restart", "reboot", "bounce"),
    ("close", "resolve", "finish", "done"),
    ("assign", "hand", "delegate"),
    ("user", "member", "person", "people", "account", "teammate", "colleague"),
    ("issue", "ticket", "bug", "task", "card"),
    ("comment", "reply", "note", "remark"),
    ("channel", "room", "chat"),
    ("email", "mail", "inbox"),
    ("file", "document", "doc", "object", "blob"),
    ("bucket", "container"),
    ("database", "db"),
    ("table", "tables"),
    ("instance", "vm", "server", "machine", "host", "node"),
    ("log", "logs", "journal"),
    ("event", "meeting", "appointment"),
)
# Nouns people use as verbs at the head of a request ("file a bug", "email the report", "log two hours"): read
# as that verb when first, or before an article; elsewhere ("attach a file") they stay nouns.
VERBS = {"file": "create", "log": "create", "schedule": "create", "email": "send", "message": "send", "ticket": "create"}
WORD = re.compile(r"[a-z0-9]+")
CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def stem(word: str) -> str:
    """A few English suffixes cut, so ``issues`` and ``issue``, ``creating`` and ``create`` meet."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if len(word) > len(suffix) + 2 and word.endswith(suffix) and not word.endswith("ss"):
            word = word[: -len(suffix)] + keep
            break
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


SYNONYMS = {stem(w): stem(group[0]) for group in GROUPS for w in group}  # stemmed both sides: "deleting" meets "erase"


@functools.lru_cache(maxsize=65536)  # a pure function of the word; a server listed anew repeats its words, not new ones
def fold(word: str) -> str:
    """One lower-case word as the index keeps it: stemmed, then folded onto its synonym group's word."""
    stemmed = stem(word)
    return SYNONYMS.get(stemmed, stemmed)


def words(text: str, *, drop_stop: bool = True) -> list[str]:
    """The words of ``text`` as written: split (camelCase too), lower-cased, stop words out."""
    return [w for w in WORD.findall(CAMEL.sub(" ", text).lower()) if not (drop_stop and w in STOP)]


def terms(text: str, *, drop_stop: bool = True) -> list[str]:
    """The index's words of ``text``: ``words``, each ``fold``-ed."""
    return [fold(w) for w in words(text, drop_stop=drop_stop)]


@dataclass(frozen=True)
class Doc:
    """One tool as the index reads it."""

    name: str  # the name the model calls it by
    server: str
    original: str  # the server's own name for it ("" for a built-in)
    description: str = ""
    hint: str = ""  # _meta["anthropic/searchHint"], whitespace collapsed
    params: tuple[str, ...] = ()

    def fields(self) -> dict[str, list[str]]:
        return {"name": terms(self.name.replace("mcp__", " "), drop_stop=False), "hint": terms(self.hint),
                "params": [t for p in self.params for t in terms(p, drop_stop=False)], "description": terms(self.description)}


@dataclass(frozen=True)
class Match:
    name: str
    score: float
    why: Mapping[str, tuple[str, ...]]  # field -> the query's words found in it

    def explained(self) -> str:
        return "; ".join(f"{f}: {', '.join(words)}" for f, words in self.why.items() if words) or "selected by name"


@dataclass(frozen=True)
class Query:
    """A parsed query: ``select`` names, or keywords with the ``required`` ones among them."""

    text: str
    select: tuple[str, ...] = ()
    words: tuple[str, ...] = ()
    required: tuple[str, ...] = ()
    shown: Mapping[str, str] = field(default_factory=dict)  # each folded word -> the query's word it came from

    @classmethod
    def parse(cls, text: str) -> Query:
        text = " ".join(text.split())
        if text.lower().startswith("select:"):
            return cls(text, select=tuple(n.strip() for n in text[7:].split(",") if n.strip()))
        found, required, shown = [], [], {}
        split = text.split()
        for at, raw in enumerate(split):
            for word in words(raw.lstrip("+"), drop_stop=not raw.startswith("+")):
                verb = VERBS.get(word) if at == 0 or split[at + 1:at + 2] in (["a"], ["an"], ["the"]) else None
                term = fold(verb or word)
                shown.setdefault(term, word)
                found.append(term)
                if raw.startswith("+"):
                    required.append(term)
        return cls(text, words=tuple(dict.fromkeys(found)), required=tuple(dict.fromkeys(required)), shown=shown)


@dataclass
class _Entry:
    doc: Doc
    fields: dict[str, list[str]]
    tf: dict[str, float]  # weighted term frequency over the fields
    length: float
    name_terms: frozenset[str] = field(default=frozenset())


class Index:
    """BM25F over ``Doc`` values, updated one server at a time."""

    def __init__(self) -> None:
        self._docs: dict[str, _Entry] = {}
        self._by_server: dict[str, list[str]] = {}
        self._postings: dict[str, dict[str, float]] = {}
        self._total = 0.0
        self._sorted: list[str] | None = None

    def __len__(self) -> int:
        return len(self._docs)

    def servers(self) -> list[str]:
        return sorted(self._by_server)

    def names(self) -> list[str]:
        return sorted(self._docs)

    def doc(self, name: str) -> Doc | None:
        entry = self._docs.get(name)
        return entry.doc if entry is not None else None

    def update(self, server: str, docs: Iterable[Doc]) -> None:
        """Replace ``server``'s documents with ``docs``. A document equal to the one it replaces keeps its entry
        and postings: a server that lists again with one tool changed costs that one tool."""
        before = {name: self._docs[name] for name in self._by_server.pop(server, ())}
        names = []
        for doc in docs:
            names.append(doc.name)
            entry = before.pop(doc.name, None)
            if entry is not None and (entry.doc is doc or entry.doc == doc):
                continue
            if entry is not None:
                self._forget(doc.name)
            self._add(doc)
        for name in before:  # no longer listed
            self._forget(name)
        if names:
            self._by_server[server] = names

    def drop(self, server: str) -> None:
        for name in self._by_server.pop(server, ()):
            self._forget(name)

    def _add(self, doc: Doc) -> None:
        self._sorted = None
        fields = doc.fields()
        tf: dict[str, float] = {}
        for f, words in fields.items():
            for word in words:
                tf[word] = tf.get(word, 0.0) + WEIGHTS[f]
        length = sum(WEIGHTS[f] * len(words) for f, words in fields.items())
        self._docs[doc.name] = _Entry(doc, fields, tf, length, frozenset(fields["name"]))
        for word, weight in tf.items():
            self._postings.setdefault(word, {})[doc.name] = weight
        self._total += length

    def _forget(self, name: str) -> None:
        self._sorted = None
        entry = self._docs.pop(name)
        for word in entry.tf:
            posting = self._postings[word]
            posting.pop(name, None)
            if not posting:
                del self._postings[word]
        self._total -= entry.length

    def search(self, query: Query, limit: int = 5, among: Sequence[str] | None = None) -> list[Match]:
        """The best ``limit`` matches, best first (ties by name); ``among``: only these names."""
        if query.select:
            return [Match(n, 0.0, {}) for n in self.selected(query.select)][:limit] if limit else []
        if not self._docs or not query.words:
            return []
        allowed = set(among) if among is not None else None
        n, average = len(self._docs), self._total / len(self._docs)
        scores: dict[str, float] = {}
        for word in query.words:
            for term, weight in self._expanded(word):
                posting = self._postings[term]
                idf = weight * math.log(1 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
                for name, tf in posting.items():
                    length = self._docs[name].length
                    scores[name] = scores.get(name, 0.0) + idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
        ranked = sorted(((-s, name) for name, s in scores.items()
                         if (allowed is None or name in allowed) and all(r in self._docs[name].name_terms for r in query.required)))
        return [Match(name, round(-s, 3), self._why(name, query)) for s, name in ranked[:limit]]

    def _expanded(self, word: str) -> list[tuple[str, float]]:
        """``word`` itself, and the index's longer words it begins (at ``PREFIX``), each once."""
        found = [(word, 1.0)] if word in self._postings else []
        if len(word) >= SHORTEST:
            vocabulary = self._vocabulary()
            at = bisect.bisect_right(vocabulary, word)
            while at < len(vocabulary) and vocabulary[at].startswith(word):
                found.append((vocabulary[at], PREFIX))
                at += 1
        return found

    def _vocabulary(self) -> list[str]:
        if self._sorted is None:  # sorted again only after an update: searches are many, updates few
            self._sorted = sorted(self._postings)
        return self._sorted

    def selected(self, names: Sequence[str]) -> list[str]:
        """The tools ``select:`` names, in the order given: a full name, or a server's own name that one server has."""
        found = []
        for wanted in names:
            if wanted in self._docs:
                found.append(wanted)
                continue
            same = [name for name, e in self._docs.items() if e.doc.original == wanted]
            if len(same) == 1:
                found.append(same[0])
        return list(dict.fromkeys(found))

    def _why(self, name: str, query: Query) -> dict[str, tuple[str, ...]]:
        fields = self._docs[name].fields
        return {f: tuple(query.shown.get(w, w) for w in query.words if any(t == w or (len(w) >= SHORTEST and t.startswith(w)) for t in found))
                for f, found in fields.items()}
