"""The web table's words: one file a language, each with every key of English and the same placeholders, and no
visible English on the page that does not come from the catalogue."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parent.parent / "playing" / "web" / "static"
LANGUAGES = ("en", "ar", "es", "de", "pt", "id")
ENGLISH = json.loads((STATIC / "i18n" / "en.json").read_text(encoding="utf-8"))
PLACEHOLDER = re.compile(r"\{\w+\}")


def catalogue(lang: str) -> dict[str, str]:
    return json.loads((STATIC / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def test_one_file_per_language_and_no_other():
    assert sorted(p.stem for p in (STATIC / "i18n").glob("*.json")) == sorted(LANGUAGES)
    listed = re.search(r"LANGUAGES = \{(.*?)\}", (STATIC / "i18n.js").read_text(encoding="utf-8")).group(1)
    assert re.findall(r"(\w+): \"", listed) == list(LANGUAGES)


@pytest.mark.parametrize("lang", LANGUAGES[1:])
def test_every_language_has_every_english_key_with_the_same_placeholders(lang):
    words = catalogue(lang)
    assert sorted(set(ENGLISH) - set(words)) == [], f"{lang}.json misses these keys"
    assert sorted(set(words) - set(ENGLISH)) == [], f"{lang}.json has keys English does not"
    for key, text in ENGLISH.items():
        assert sorted(PLACEHOLDER.findall(words[key])) == sorted(PLACEHOLDER.findall(text)), f"{lang}: {key}"
        assert words[key].strip(), f"{lang}: {key} is empty"


def test_a_missing_key_is_caught():
    """The check above can fail: a catalogue without one key is reported."""
    words = dict(catalogue("es"))
    words.pop("tools.hint")
    assert sorted(set(ENGLISH) - set(words)) == ["tools.hint"]


def test_every_key_the_page_uses_is_in_the_english_catalogue():
    script = (STATIC / "table.js").read_text(encoding="utf-8")
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    used = set(re.findall(r"\bt[n]?\(\s*\"([\w.]+)\"", script))
    used |= set(re.findall(r"\"([a-z]+\.[a-z_A-Z0-9]+)\"", script)) & {k for k in re.findall(r"[\w.]+", script)
                                                                     if k.split(".")[0] in {x.split(".")[0] for x in ENGLISH}}
    used |= set(re.findall(r"data-i18n(?:-title|-aria)?=\"([^\"]+)\"", html))
    for prefix, names in (("level.", ("beginner", "casual", "club", "strong", "master")), ("suit.", "0123"),
                          ("rules.", ("classic", "syrian41", "hearts41", "trump_by_card"))):
        used |= {prefix + n for n in names}  # keys the page builds from a value
    assert sorted(k for k in used if k not in ENGLISH) == []


class _Visible(HTMLParser):
    """Text of index.html that is shown and not replaced from the catalogue."""

    def __init__(self):
        super().__init__()
        self.stack: list[bool] = []
        self.loose: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag not in ("meta", "link", "input", "br"):
            self.stack.append(any(k == "data-i18n" for k, _ in attrs) or tag in ("script", "style", "title"))

    def handle_endtag(self, tag):
        if tag not in ("meta", "link", "input", "br") and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if not any(self.stack) and re.search(r"[A-Za-z]{2,}", data):
            self.loose.append(data.strip())


def test_no_visible_english_in_the_page_outside_the_catalogue():
    parser = _Visible()
    parser.feed((STATIC / "index.html").read_text(encoding="utf-8"))
    assert parser.loose == []
    script = (STATIC / "table.js").read_text(encoding="utf-8")
    # words written straight into the page: text: "Word", textContent = "Word", a button's label "Word"
    assert re.findall(r"(?:text: |textContent = |\}, )[\"`][A-Z][a-z]+ [a-z]", script) == []
