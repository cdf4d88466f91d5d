"""Choosing the sandbox: auto falls back to none with one warning line where
bwrap cannot start; --sandbox bwrap then stops with a clear error; match.yaml
says which was used."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import yaml

from conftest import BOARDS, referee

def _play(tmp_path: Path, *extra: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return referee("play", "cantris", "--player", "builtin:random", "--player",
                   "builtin:random", "--board", BOARDS / "cantris" / "6x3-1.txt",
                   "--out", tmp_path / "m", "--quiet", "--seed", "1", *extra,
                   env={**os.environ, **(env or {})}, timeout=120)


def test_auto_falls_back_to_none_with_one_warning(tmp_path):
    proc = _play(tmp_path, env={"REFEREE_BWRAP": "/bin/false", "REFEREE_SANDBOX": ""})
    assert proc.returncode == 0, proc.stderr
    warnings = [ln for ln in proc.stderr.splitlines() if ln.startswith("referee: warning:")]
    assert len(warnings) == 1 and "without a sandbox" in warnings[0] and "/bin/false" in warnings[0]
    assert yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())["sandbox"] == "none"


def test_asking_for_bwrap_where_it_cannot_start_is_an_error(tmp_path):
    proc = _play(tmp_path, "--sandbox", "bwrap", env={"REFEREE_BWRAP": "/bin/false"})
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("referee: error: --sandbox bwrap: /bin/false")
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "m").exists()


def test_none_is_recorded_and_has_no_warning(tmp_path):
    proc = _play(tmp_path, "--sandbox", "none")
    assert proc.returncode == 0 and "warning" not in proc.stderr
    assert yaml.safe_load((tmp_path / "m" / "match.yaml").read_text())["sandbox"] == "none"


def test_an_unknown_runner_is_an_error_not_a_match_without_seat_hosts_or_sandbox(tmp_path):
    """REFEREE_RUNNER=bogus (any value but host, direct and portable) was read
    as `not host`: the seat hosts and the sandbox went off, as with direct,
    and nothing said so.  A tournament reported it as its config's fault."""
    message = ("referee: error: environment variable REFEREE_RUNNER='bogus' is not a runner: use host (the "
               "default), direct or portable, or unset it\n")
    proc = _play(tmp_path, env={"REFEREE_RUNNER": "bogus"})
    assert (proc.returncode, proc.stderr) == (2, message)
    assert not (tmp_path / "m").exists()
    config = tmp_path / "cup.yaml"
    config.write_text(yaml.safe_dump({"game": "cantris", "format": "round_robin", "out": "cup", "entrants": [
        {"name": "a", "command": "builtin:random"}, {"name": "b", "command": "builtin:random"}]}))
    proc = referee("tournament", config, cwd=tmp_path, env={**os.environ, "REFEREE_RUNNER": "bogus"})
    assert (proc.returncode, proc.stderr) == (2, message)
    for unset in ("", "host"):
        proc = _play(tmp_path / unset, "--sandbox", "none", env={"REFEREE_RUNNER": unset})
        assert proc.returncode == 0, proc.stderr
