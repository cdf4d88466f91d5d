"""The conformance kit in a game's own pytest suite.  In ``tests/test_conformance.py``::

    from referee.conformance.testing import conformance_test

    test_conformance = conformance_test("connect4")

gives one test per check (``test_conformance[determinism]``, ...); a failure
prints the kit's lines, each naming the game function and the seed that
reproduces it.  ``playouts`` trades time for coverage (``referee check-game``
plays 20 per player count)."""
from __future__ import annotations

from typing import Callable

from . import CHECKS, run_checks


def conformance_test(game: str, playouts: int = 6, first_seed: int = 0) -> Callable[[str], None]:
    """A pytest test function, parametrized over the kit's checks."""
    import pytest

    @pytest.mark.parametrize("check", list(CHECKS))
    def test(check: str) -> None:
        (result,) = run_checks(game, playouts, first_seed, [check])
        if result.failures:
            pytest.fail("\n".join(f"{game}: {line}" for line in result.failures), pytrace=False)

    test.__doc__ = f"The referee's conformance kit over {game}."
    return test
