"""The tournament's report.html: a real tournament through the CLI, then the
page read in a headless browser (standings, cross-table, bracket, links to
replay pages that exist), and the page's pieces checked on their own."""
from __future__ import annotations

import csv
from types import SimpleNamespace

import pytest
import yaml
from browser import CHROMIUM, Dom, dump_dom, needs_browser, screenshot
from conftest import double_elimination_of_four

from referee.tournament.journal import GameRecord
from referee.web.report_page import REPLAY_NAME, cross_table, render, standings_rows, write_replays


@pytest.fixture(scope="module")
def tournament(tmp_path_factory):
    """Double elimination of four (one always crashes) on a small Cantris
    board (conftest.double_elimination_of_four: played once per run)."""
    root = double_elimination_of_four(tmp_path_factory)
    out = root / "out"
    games = list(csv.DictReader((out / "games.csv").open()))
    standings = list(csv.DictReader((out / "standings.csv").open()))
    return out, games, standings


def test_every_game_has_a_replay_page_and_a_link(tournament):
    out, games, _ = tournament
    page = (out / "report.html").read_text(encoding="utf-8")
    assert games
    for game in games:
        replay = out / game["folder"] / REPLAY_NAME
        assert replay.is_file() and replay.stat().st_size > 5000
        assert f'href="{game["folder"]}/{REPLAY_NAME}"' in page
    assert "http://" not in page and "https://" not in page


def test_replay_pages_are_written_anew_never_a_planted_one(tournament, tmp_path):
    """A player (without the sandbox) may plant replay.html in its game
    folder: a page of its own, a link to a file elsewhere, a directory.  The
    report writes every page anew, replaces a planted file or link without
    following it, and links only the pages it wrote."""
    out, games, _ = tournament
    import shutil

    copies = tmp_path / "out"
    outside = tmp_path / "outside.html"
    outside.write_text("the TA's own file")
    records = []
    for n, game in enumerate(games[:3]):
        shutil.copytree(out / game["folder"], copies / game["folder"])
        page = copies / game["folder"] / REPLAY_NAME
        page.unlink()
        if n == 0:
            page.write_text("<h1>player 1 wins</h1>")
        elif n == 1:
            page.symlink_to(outside)
        else:
            (page / "x").mkdir(parents=True)
        records.append(SimpleNamespace(key=game["game"], folder=game["folder"]))
    again = write_replays(copies, records)
    assert again["written"] == 2 and list(again["failed"]) == [records[2].key]
    assert again["pages"] == {records[0].key, records[1].key}
    for record in records[:2]:
        page = copies / record.folder / REPLAY_NAME
        assert page.is_file() and not page.is_symlink() and "player 1 wins" not in page.read_text()
    assert outside.read_text() == "the TA's own file"


@needs_browser
def test_report_standings_cross_table_and_bracket(tournament, tmp_path):
    out, games, standings = tournament
    report = out / "report.html"
    dom = dump_dom(report)
    rows = [a for tag, a in dom.elements if tag == "tr" and "data-entrant" in a]
    assert len(rows) == len(standings) == 4
    assert [a["data-place"] for a in rows] == [s["place"] for s in standings]
    crash = {a["data-verdict"] for a in dom.find(data_verdict="CRASH")}
    assert crash == {"CRASH"}
    cy = next(s for s in standings if s["name"] == "cy")
    assert int(cy["CRASH"]) > 0
    # the cross-table is antisymmetric and counts every game once per pair
    cells = {(a["data-row"], a["data-col"]): a for a in dom.find() if "data-row" in a}
    total = 0
    for (row, col), a in cells.items():
        mirror = cells[(col, row)]
        assert a["data-wins"] == mirror["data-losses"] and a["data-draws"] == mirror["data-draws"]
        total += int(a["data-wins"]) + int(a["data-draws"]) + int(a["data-losses"])
    assert total == 2 * len(games)
    # the bracket: every table that played is a box, its winner marked
    boxes = {a["data-match"]: a for a in dom.find() if "data-match" in a}
    for table in {g["table"] for g in games}:
        assert table in boxes and boxes[table]["data-winner"] in {"ann", "bob", "cy", "dee"}
    assert "Grand final" in dom.source
    screenshot(report, tmp_path / "report.png", size="1280,1800")
    screenshot(report, tmp_path / "report-phone.png", size="400,1800")


@needs_browser
def test_a_linked_replay_opens_with_its_result(tournament):
    out, games, _ = tournament
    game = next(g for g in games if "CRASH" in g["reason"])
    log = [yaml.safe_load(line) for line in (out / game["folder"] / "log.jsonl").read_text().splitlines()]
    step = next(r["step"] for r in log if r["verdict"] == "CRASH")
    dom = dump_dom(out / game["folder"] / REPLAY_NAME, f"#step={step}")
    winner = game["winner"]
    assert dom.text("result-headline").endswith(f"{winner} wins")
    assert dom.find(data_verdict="CRASH")
    assert "bye &lt;i&gt;now&lt;/i&gt;" in dom.source


def record(key, seats, ranking, winner=None):
    return GameRecord(key=key, table="t", seats=seats, board=0, seed=0, extra=False, winner=winner,
                      ranking=ranking, scores=None, reason="", verdicts={}, steps=1, folder=key)


def test_cross_table_counts_who_finished_ahead_at_bigger_tables():
    # entrants 0, 1, 2 at one Tsuro table: seat 2 (entrant 1) first, seats 1 and 3 tied out
    grid = cross_table([record("g", (0, 1, 2), ((2,), (1, 3)), winner=2)], 3)
    assert (grid[1][0].wins, grid[1][2].wins) == (1, 1)
    assert (grid[0][1].losses, grid[0][2].draws, grid[2][0].draws) == (1, 1, 1)
    assert grid[1][0].tone == "ahead" and grid[0][1].tone == "behind" and grid[0][2].tone == "even"


def test_rating_column_only_when_standings_carry_ratings():
    from collections import Counter

    base = dict(entrant=0, name="ann", seed=1, place=1, games=2, wins=1, draws=0, losses=1,
                points=1.0, score=3.5, verdicts=Counter({"TIMEOUT": 2, "OK": 9}))
    rows, faults, rated = standings_rows([SimpleNamespace(**base)])
    assert not rated and faults == ["TIMEOUT"] and rows[0]["verdicts"] == [("TIMEOUT", 2)]
    rows, _, rated = standings_rows([SimpleNamespace(**base, rating=1523.4, rating_low=1400.0,
                                                     rating_high=1650.2)])
    assert rated and rows[0]["rating"] == "1523" and rows[0]["interval"] == "1400 – 1650"


RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE: what follows it shows mirrored, to the end of its paragraph


def report_with_names(names, tmp_path):
    """report.html of one single-elimination game between ``names`` (the
    second wins 32:22), rendered from the tournament's pieces."""
    from collections import Counter
    from pathlib import Path

    from referee.tournament.formats import Bracket
    from referee.tournament.tables import Decision

    fmt = Bracket([0, 1], double=False)
    table = fmt.matches[0].id
    config = SimpleNamespace(names=names, path=Path("class.yaml"), game="cantris", format="single_elimination",
                             boards=[None], seed=1)
    plan = SimpleNamespace(decisions={table: Decision(winner=1, how="points")}, finished=True, expected_games=1)
    game = GameRecord(key="g1", table=table, seats=(0, 1), board=0, seed=0, extra=False, winner=2,
                      ranking=((2,), (1,)), scores={1: 22, 2: 32}, reason="player 1 forfeited (CRASH)",
                      verdicts={}, steps=9, folder="games/g1")
    rows = [SimpleNamespace(entrant=e, name=names[e], seed=e + 1, place=2 - e, games=1, wins=e, draws=0,
                            losses=1 - e, points=float(e), score=22.0 + 10 * e, verdicts=Counter())
            for e in (1, 0)]
    return render(config, fmt, plan, [game], rows, tmp_path)


def test_a_name_cannot_turn_the_text_around_it_around(tmp_path):
    """An entrant named with U+202E (right-to-left override) turned the rest
    of each table cell its name was in around: the Games table's result
    'wins 32:22' read '22:23 sniw'.  Every name shown is in a <bdi>, which
    keeps what a name holds to itself: standings, cross-table, bracket, the
    Games table's players and result.  (report-rlo.png, for a person.)"""
    names = [f"{RLO}ann", f"{RLO}bob <b>"]
    page = report_with_names(names, tmp_path)
    dom = Dom(page)
    assert dom.outside("bdi", RLO) == [], dom.outside("bdi", RLO)
    shown = [data for data, tags in dom.chunks if RLO in data]
    assert len(shown) == 2 + 2 + 2 + 2 + 2  # standings, cross-table rows, bracket, players, result
    assert "&lt;b&gt;</bdi>" in page and "<b>" not in page  # still escaped
    row = page[page.index('data-game="g1"'):]
    assert f"<bdi>{RLO}bob &lt;b&gt;</bdi> wins 32:22: <bdi>{RLO}ann</bdi> forfeited (CRASH)</td>" in row
    if CHROMIUM is not None:  # a picture to look at
        (tmp_path / "report-rlo.html").write_text(page, encoding="utf-8")
        screenshot(tmp_path / "report-rlo.html", tmp_path / "report-rlo.png", size="1100,900")
