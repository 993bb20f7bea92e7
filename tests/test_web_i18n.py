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


# ---------------------------------------------------------------------- the server's messages
# Every message the server can send a player is a key of playing.messages.MESSAGES (with English for API users);
# the page words it from the catalogue, so a Spanish page shows a Spanish refusal.
from playing.messages import MESSAGES, placeholders  # noqa: E402

ROOT = STATIC.parent.parent.parent
KEY = re.compile(r"^(srv|rec|move|reason)\.\w+$")


def missing_server_keys(words: dict[str, str]) -> list[str]:
    return sorted(set(MESSAGES) - set(words))


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_language_words_every_message_the_server_can_send(lang):
    assert missing_server_keys(catalogue(lang)) == [], f"{lang}.json misses these server messages"


def test_a_missing_server_message_is_caught():
    words = dict(catalogue("ar"))
    words.pop("rec.bad_dealer")
    assert missing_server_keys(words) == ["rec.bad_dealer"]


def test_the_page_words_use_only_parameters_the_server_sends():
    """A page text may leave out a parameter (a JSON parser's position), never name one the server lacks."""
    for key, text in MESSAGES.items():
        extra = set(PLACEHOLDER.findall(ENGLISH[key])) - {"{%s}" % p for p in placeholders(text)}
        assert not extra, f"en.json {key} uses {sorted(extra)}; the server sends {sorted(placeholders(text))}"


def _keys_in_source() -> dict[str, list[str]]:
    """Every string constant shaped like a message key in the server's code, with where it is."""
    import ast

    found: dict[str, list[str]] = {}
    for path in sorted((ROOT / "playing").rglob("*.py")):
        if path.name == "messages.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and KEY.match(node.value):
                found.setdefault(node.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_key_the_server_code_names_is_registered():
    used = _keys_in_source()
    assert {k: where for k, where in used.items() if k not in MESSAGES} == {}
    assert len(used) > 50  # the walk sees the raises in app.py, session.py, records.py, registry.py, bounds.py


def test_no_message_key_is_built_from_pieces():
    """f"srv.bad_{role}" would hide a key from the check above: keys are written whole."""
    for path in sorted((ROOT / "playing").rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"f[\"'](srv|rec|move|reason)\.", text), path


def test_every_reason_rule_gives_has_a_key():
    """The Hint's reason under rules no network is trained for: each of rule's words is a registered message."""
    import ast

    from agents.rule_play import REASONS
    from playing.advice import REASON_KEYS

    tree = ast.parse((ROOT / "agents" / "rule_agent.py").read_text(encoding="utf-8"))
    literal = {node.value.elts[1].value for node in ast.walk(tree)
               if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and len(node.value.elts) == 2
               and isinstance(node.value.elts[1], ast.Constant) and isinstance(node.value.elts[1].value, str)}
    assert len(literal) >= 7
    assert sorted(r for r in (*REASONS, *literal) if r not in REASON_KEYS) == []


def word(message: dict, lang: str) -> str:
    """table.js's words(): a message's key in ``lang`` with its parameters, themselves worded when messages."""
    text = catalogue(lang)[message["key"]]
    params = {k: word(v, lang) if isinstance(v, dict) else str(v) for k, v in message["params"].items()}
    return PLACEHOLDER.sub(lambda m: params.get(m.group(0)[1:-1], m.group(0)), text)


def test_a_refused_record_reads_in_spanish_and_arabic():
    from playing.messages import Message

    why = Message("rec.bad_dealer", got="7")
    refused = Message("srv.refused", why=why).to_dict()
    assert str(Message("srv.refused", why=why)) == "refused: dealer: expected a seat 0-3, got 7"
    assert word(refused, "es") == "Rechazado: el repartidor debe ser un asiento del 0 al 3, no 7."
    assert word(refused, "ar") == "مرفوض: يجب أن يكون الموزّع مقعدًا من 0 إلى 3، لا 7."


def test_server_words_reach_the_page_as_text_only():
    """Message parameters (a file name, a field of a record) come from outside: never parsed as HTML."""
    for name in ("table.js", "i18n.js"):
        script = (STATIC / name).read_text(encoding="utf-8")
        assert not re.search(r"innerHTML|outerHTML|insertAdjacentHTML|document\.write", script), name
