"""match.yaml and result.yaml are the same bytes with and without libyaml.

match.yaml's bytes start the log's hash chain (determinism: the same seed,
board and decisions give the same log byte for byte, on any machine), and
``files.yaml_text`` writes with libyaml's emitter where it is installed, for
speed.  The two emitters differ on some documents, so libyaml is used only for
"plain" ones; these tests hold the emitters equal there, and the files the
referee writes equal to what pure PyYAML writes."""
from __future__ import annotations

import random
import string
from pathlib import Path

import pytest
import yaml

from conftest import FIRST_CELL, play_match, write_player
from referee.core import files

needs_libyaml = pytest.mark.skipif(getattr(yaml, "CSafeDumper", None) is None,
                                   reason="PyYAML without libyaml: there is one emitter only")


def pure(data) -> str:
    """What PyYAML's own (pure Python) emitter writes: the reference."""
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True)


def libyaml(data) -> str:
    return yaml.dump(data, Dumper=yaml.CSafeDumper, sort_keys=False, allow_unicode=True)


# Words YAML would read as something else, and the characters that make a
# plain scalar need quotes, at the start, the end and in the middle.
TRICKY = ["yes", "no", "null", "~", "true", "False", "1.0", "0x1f", "1e3", "-", "---", "...", "<<",
          "=", ".inf", "NaN", "0o17", "1_000", "2024-01-01", "12:30", " a", "a ", "- a", "? x",
          "a: b", "#c", "a #b", "'", '"', "@x", "`x", "!t", "&a", "*a", "|", ">", "%x", "[",
          "{", "]", "}", ",", "a\\b", "  ", "-1", "+1", ":", "::", "a:b"]
ALPHABET = string.printable[:95] + " " * 10


def text(rnd: random.Random, longest: int, shortest: int = 0) -> str:
    """Printable ASCII: YAML's tricky words alone or run together, or any characters."""
    if rnd.random() < 0.4:
        return " ".join(rnd.choices(TRICKY, k=rnd.randint(1, 30)))[:longest].ljust(shortest, "x")
    return "".join(rnd.choices(ALPHABET, k=rnd.randint(shortest, longest)))


def value(rnd: random.Random, depth: int = 0):
    roll = rnd.random()
    if depth < 3 and roll < 0.2:
        return [value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    if depth < 3 and roll < 0.4:
        return mapping(rnd, depth + 1)
    return rnd.choice([lambda: text(rnd, 300), lambda: rnd.randint(-2**70, 2**70),
                       lambda: rnd.random() * 10 ** rnd.randint(-20, 20), lambda: rnd.random() < 0.5,
                       lambda: None, lambda: float("inf"), lambda: float("nan")])()


def mapping(rnd: random.Random, depth: int = 0) -> dict:
    keys = (text(rnd, 100, 1) if rnd.random() < 0.7 else rnd.randint(-10, 10**6)
            for _ in range(rnd.randint(0, 5)))
    return {key: value(rnd, depth) for key in keys}


@needs_libyaml
def test_the_emitters_agree_on_every_plain_document():
    """Thousands of plain documents, the same ones at every run (a fixed
    seed): keys up to the 100 characters allowed, values of any length (lines
    folded), nested mappings and lists, every kind of scalar."""
    rnd = random.Random(26)
    for _ in range(1200):
        document = mapping(rnd)
        assert files.plain_document(document)
        assert libyaml(document) == pure(document), document


@pytest.mark.parametrize("document", [
    {"name": "jos\u00e9"}, {"name": "\U0001F600"}, {"": 1}, {"a" * 101: 1}, {"x": "a\nb"},
    {"x": "tab\there"}, {"x": ("a", "b")}, {"x": b"bytes"}, {None: 1}, {1.5: 1}, {True: 1},
    {"x": [{"y": "\u2028"}]}, "a lone scalar", ["a", "list"]])
def test_anything_else_is_written_by_pyyaml_itself(document):
    """Unicode, line breaks, tabs, empty or long keys, other types, a
    document that is not a mapping: not plain, so the pure emitter writes
    them, whatever libyaml would have done."""
    assert not files.plain_document(document)
    try:
        expected = pure(document)
    except yaml.YAMLError as exc:
        with pytest.raises(type(exc)):
            files.yaml_text(document)
    else:
        assert files.yaml_text(document) == expected


def test_a_matchs_files_are_what_pure_pyyaml_writes(tmp_path):
    """Real match folders: one whose players' commands are plain (libyaml
    writes it, where present) and one with a player in a folder named in
    unicode, with an emoji (the pure emitter writes it)."""
    odd = tmp_path / "jos\u00e9\U0001F600"
    odd.mkdir()
    plain_player = write_player(tmp_path, "first", FIRST_CELL)
    odd_player = write_player(odd, "first", FIRST_CELL)
    for name, players, plain in (("plain", (plain_player, "builtin:greedy"), True),
                                 ("odd", (odd_player, plain_player), False)):
        out = tmp_path / name
        play_match("cantris", out, *players, seed=3)
        for document in ("match.yaml", "result.yaml"):
            written = (out / document).read_text(encoding="utf-8")
            data = yaml.safe_load(written)
            assert written == pure(data), document
            if document == "match.yaml":
                assert files.plain_document(data) is plain




def test_result_yaml_of_a_plain_match_is_plain(tmp_path):
    """The speed is real only if the documents the referee writes are plain:
    a match between plain commands keeps result.yaml plain too."""
    player = write_player(tmp_path, "first", FIRST_CELL)
    out = tmp_path / "m"
    play_match("cantris", out, player, player, seed=5)
    assert files.plain_document(yaml.safe_load((out / "result.yaml").read_text(encoding="utf-8")))
