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


def derived_rng(seed: int, *labels: object) -> random.Random:
    """A fresh generator determined by ``seed`` and ``labels`` only."""
    text = ":".join([str(seed), *map(str, labels)])
    digest = hashlib.sha256(text.encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))
