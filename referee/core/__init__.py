"""The game-agnostic core: game protocol, player runner, match loop, logs, replay."""
