"""Reproducible randomness.

Every random choice in a match (a shuffled pile, a random move under the
``random`` fault policy) comes from a generator derived from the match seed and
a label naming *where* it is used.  No generator is shared or advanced
elsewhere, so a replay reproduces the same choices from the same seed and
decisions, whatever order the code asks in.
"""
from __future__ import annotations

import hashlib
import random
import secrets


def derived_rng(seed: int, *labels: object) -> random.Random:
    """A fresh generator determined by ``seed`` and ``labels`` only."""
    text = ":".join([str(seed), *map(str, labels)])
    digest = hashlib.sha256(text.encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def match_key(seed: int | None) -> str:
    """The secret every chance of a match comes from (a shuffled pile, the
    seeds in state.json, the random policy's moves): 128 random bits, or
    derived from ``seed`` when one is given, so that a given seed still
    makes the match reproducible.  A player is shown nothing it could be
    rebuilt from: the 31-bit seed in a folder's name is not it, and the
    state.json seeds are hashes of it (see docs/protocol.md)."""
    if seed is None:
        return secrets.token_hex(16)
    return derived_key(str(seed), "match-key")


def derived_key(key: str, *labels: object) -> str:
    """A key for a part of something keyed (a game of a tournament)."""
    text = ":".join(["referee-key", key, *map(str, labels)])
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def chance_seed(key: str) -> int:
    """The integer the games' ``Setup.seed`` is: the key's 128 bits."""
    return int(key, 16)


def recorded_chance(match_yaml: dict) -> int:
    """The chance seed a match folder was played with: from match.yaml's
    ``key`` (folders from before keys used the seed itself)."""
    key = match_yaml.get("key")
    if key is None:
        return int(match_yaml["seed"])
    try:
        return chance_seed(str(key))
    except ValueError:
        from .errors import InputError

        raise InputError(f"match.yaml: key {str(key)[:40]!r} is not hexadecimal") from None
