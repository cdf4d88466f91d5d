"""Connect Four for the referee: an example of a game that is its own
package.  Declared in pyproject.toml's ``referee.games`` entry points, it is
played, replayed, verified and put in tournaments like the games the referee
ships (docs/writing-a-game.md in the referee)."""
from .game import ConnectFour

GAME = ConnectFour()
