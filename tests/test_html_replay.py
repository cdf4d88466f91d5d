"""`referee replay --html` in a real headless browser: for every game, load a
replay at ``#step=K``, read the DOM after the scripts ran, and check what is
drawn against the state recomputed from the log; a faulty match shows its
verdict badges, message and the player's (escaped) output.  Screenshots of
every game are left in the test's temp folder for a person to look at."""
from __future__ import annotations

import json
import math
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from browser import dump_dom, needs_browser, screenshot
from conftest import BOARDS, play_match, referee

from referee.replay import frames, load

PLAYERS = ("builtin:greedy", "builtin:random")

MATCHES = {  # name: (game, players, board, seed)
    "cantris": ("cantris", PLAYERS, BOARDS / "cantris" / "8x4-1.txt", 3),
    "quoridor": ("quoridor", PLAYERS, None, 2),
    "quoridor4": ("quoridor", PLAYERS + ("builtin:random",) * 2, BOARDS / "quoridor" / "standard-4p.txt", 5),
    "tessella": ("tessella", PLAYERS, None, 4),
    "blackhole": ("blackhole", PLAYERS, None, 1),
    "tsuro": ("tsuro", PLAYERS + ("builtin:random",) * 3, None, 6),
}


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Each match played by the CLI, and its replay page written by the CLI."""
    root = tmp_path_factory.mktemp("replays")
    out = {}
    for name, (game, players, board, seed) in MATCHES.items():
        folder = root / name
        play_match(game, folder, *players, seed=seed, board=board)
        page = root / f"{name}.html"
        proc = referee("replay", folder, "--html", page)
        assert proc.returncode == 0, proc.stderr
        out[name] = (folder, page)
    return out


def recomputed(folder: Path):
    replay = load(folder)
    return replay, frames(replay)


def middle(all_frames) -> int:
    """A step with something on the board, deterministic per match."""
    return max(1, (len(all_frames) - 1) * 2 // 3)


def cells(dom, kind: str, *keys: str, **extra: str) -> set[tuple[int, ...]]:
    return {tuple(int(a[f"data-{k}"]) for k in keys) for a in dom.find(data_kind=kind, **extra)}


# ----------------------------------------------------------------- the page
def test_page_is_self_contained(pages):
    _, page = pages["tsuro"]
    text = page.read_text(encoding="utf-8")
    for remote in ("http://", "https://", "<link", "src="):
        assert remote not in text.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
            "http://www.w3.org/2000/svg", ""), remote


@needs_browser
def test_header_names_players_seed_board_and_result(pages):
    folder, page = pages["quoridor4"]
    result = yaml.safe_load((folder / "result.yaml").read_text())
    match = yaml.safe_load((folder / "match.yaml").read_text())
    dom = dump_dom(page)
    rows = dom.find(data_player="1")
    assert rows, "players table"
    assert dom.text("seed") == str(match["seed"])
    assert "standard-4p.txt" in dom.text("board-source")
    players = dom.text("players")
    for p in match["players"]:
        assert p["name"] in players and p["command"][-1] in players
    winner = result["winner"]
    assert dom.text("result-headline") == f"p{winner} {match['players'][winner - 1]['name']} wins"
    assert dom.text("result-reason") == result["reason"]
    assert dom.find(id="result")[0]["data-winner"] == str(winner)


def test_the_banner_words_the_length_as_the_console_does():
    """"after 1 step", not "after 1 steps": the replay and live pages both
    show result_summary's wording, which is the console's."""
    from referee.web.replay_page import result_summary

    banner = lambda steps: result_summary({"winner": 2, "reason": "player 1 resigned", "steps": steps},
                                          {1: "a", 2: "b"})["length"]
    assert (banner(1), banner(0), banner(12)) == ("after 1 step", "after 0 steps", "after 12 steps")
    assert result_summary({"winner": None, "reason": "x"}, {})["length"] is None


@needs_browser
def test_step_zero_counts_all_steps_and_deep_links_clamp(pages):
    folder, page = pages["blackhole"]
    _, all_frames = recomputed(folder)
    last = len(all_frames) - 1
    dom = dump_dom(page)
    assert dom.text("step-label") == f"step 0 / {last}"
    assert dom.body()["data-current-step"] == "0"
    assert len(dom.find(data_step=str(last))) >= 1  # the move list has every step
    dom = dump_dom(page, f"#step={last + 50}")
    assert dom.text("step-label") == f"step {last} / {last}"


# --------------------------------------------------------- drawn per game
@needs_browser
def test_cantris_tiles_removed_cell_and_cascades(pages, tmp_path):
    folder, page = pages["cantris"]
    _, all_frames = recomputed(folder)
    record, state = all_frames[1]  # greedy's first removal on this board cascades
    dom = dump_dom(page, "#step=1", png=tmp_path / "cantris.png")
    assert dom.body()["data-current-step"] == "1"
    want = {(r, c, v) for r, row in enumerate(state.board) for c, v in enumerate(row) if v}
    main = [a for a in dom.find(data_kind="tile")]
    drawn_main = {(int(a["data-r"]), int(a["data-c"]), int(a["data-value"])) for a in main}
    assert want <= drawn_main  # stage boards add more tiles; the main board's are all there
    removed = next(e for e in record["events"] if e["type"] == "remove")
    assert cells(dom, "mark", "r", "c", data_mark="removed") == {tuple(removed["cell"])}
    cascades = [tuple(c) for e in record["events"] if e["type"] == "cascade" for c in e["cells"]]
    assert cascades, "the fixture's first step should cascade"
    assert cells(dom, "mark", "r", "c", data_mark="cascade") == set(cascades)
    assert dom.text("details").count("cascade") >= 1
    points = {a["data-player"]: a for a in dom.find(data_kind="points")}
    assert set(points) == {"1", "2"}


@needs_browser
@pytest.mark.parametrize("name", ["quoridor", "quoridor4"])
def test_quoridor_pawns_walls_goals(pages, name, tmp_path):
    folder, page = pages[name]
    _, all_frames = recomputed(folder)
    k = next((i for i, (r, s) in enumerate(all_frames) if s.wall_list() and i >= 3), middle(all_frames))
    record, state = all_frames[k]
    dom = dump_dom(page, f"#step={k}", png=tmp_path / f"{name}.png")
    seats = range(1, state.players + 1)
    assert cells(dom, "pawn", "player", "r", "c") == {(p, *state.pawn(p)) for p in seats if state.pawn(p)}
    assert cells(dom, "wall", "r1", "c1", "r2", "c2") == {(w.r1, w.c1, w.r2, w.c2) for w in state.wall_list()}
    sides = {a["data-player"]: a["data-side"] for a in dom.find(data_kind="goal")}
    assert sides == {"1": "top", "2": "bottom", "3": "right", "4": "left"} if state.players == 4 \
        else sides == {"1": "top", "2": "bottom"}
    left = {int(a["data-player"]): int(a["data-count"]) for a in dom.find(data_kind="walls-left")}
    assert left == {p: state.walls_left[p - 1] for p in seats}


@needs_browser
def test_tessella_pieces_and_diamond(pages, tmp_path):
    folder, page = pages["tessella"]
    _, all_frames = recomputed(folder)
    k = next((i for i, (r, s) in enumerate(all_frames)
              if r and any(e["type"] == "capture" for e in r["events"])), middle(all_frames))
    record, state = all_frames[k]
    dom = dump_dom(page, f"#step={k}", png=tmp_path / "tessella.png")
    want = {(p, r, c) for p in (1, 2) for r, c in state.to_json()["pieces"][str(p)]}
    assert cells(dom, "piece", "player", "r", "c") == want
    assert len(dom.find(data_kind="cell")) == 41
    assert len(dom.find(data_kind="cell", data_shape="O")) == 25
    if any(e["type"] == "capture" for e in record["events"]):
        capture = next(e for e in record["events"] if e["type"] == "capture")
        assert cells(dom, "capture", "r", "c") == {tuple(capture["at"])}


@needs_browser
def test_blackhole_ships_hole_and_saves(pages, tmp_path):
    folder, page = pages["blackhole"]
    _, all_frames = recomputed(folder)
    k = next((i for i, (r, s) in enumerate(all_frames)
              if r and any(e["type"] == "save" for e in r["events"])), middle(all_frames))
    state = all_frames[k][1]
    dom = dump_dom(page, f"#step={k}", png=tmp_path / "blackhole.png")
    want = {(v, r, c) for r, row in enumerate(state.grid) for c, v in enumerate(row) if v in (1, 2)}
    assert cells(dom, "ship", "player", "r", "c") == want
    assert cells(dom, "hole", "r", "c") == {(2, 2)}
    saved = {a["data-player"] for a in dom.find(data_kind="saved")}
    assert saved == {"1", "2"}
    assert f"{state.saved[0]} saved" in dom.source


@needs_browser
def test_tsuro_tiles_markers_trails_hands(pages, tmp_path):
    folder, page = pages["tsuro"]
    _, all_frames = recomputed(folder)
    k = next(i for i, (r, s) in enumerate(all_frames)
             if r and i >= len(all_frames) // 2 and any(e["type"] == "move" for e in r["events"]))
    record, state = all_frames[k]
    dom = dump_dom(page, f"#step={k}", png=tmp_path / "tsuro.png")
    want_tiles = {(i // 6, i % 6, cell[0], cell[1]) for i, cell in enumerate(state.cells) if cell}
    assert cells(dom, "tile", "r", "c", "tile", "rot") == want_tiles
    want_markers = {(p, *m) for p, m in enumerate(state.markers, 1) if m is not None}
    assert cells(dom, "marker", "player", "r", "c", "port") == want_markers
    out = {str(p) for p, o in enumerate(state.out, 1) if o and state.markers[p - 1] is not None}
    assert {a["data-player"] for a in dom.find(data_kind="marker") if a.get("data-out")} == out
    moved = {str(e["player"]) for e in record["events"] if e["type"] == "move"}
    assert {a["data-player"] for a in dom.find(data_kind="trail")} == moved
    for p, hand in enumerate(state.hands, 1):
        assert sorted(int(a["data-tile"]) for a in dom.find(data_kind="hand-tile", data_player=str(p))) \
            == sorted(hand)
    placed = next(e for e in record["events"] if e["type"] == "place")
    assert cells(dom, "placed", "r", "c") == {tuple(placed["cell"])}
    screenshot(page, tmp_path / "tsuro-phone.png", f"#step={k}", size="400,1400")


# ------------------------------------------------------------- a faulty match
LATE_THEN_CRASH = """
    import sys, time
    step = int(sys.argv[1])
    if step >= 3:
        print("about to crash <script>alert(1)</script>")
        print("Traceback: boom & <b>bold</b>", file=sys.stderr)
        sys.exit(3)
    time.sleep(0.8)   # past the soft limit: LATE, the move still counts
    rows = [line.split() for line in open("Board.txt") if line.strip()]
    r, c = next((r, c) for r, row in enumerate(rows) for c, v in enumerate(row) if v != "0")
    open("decision.txt", "w").write(f"{r} {c}\\n")
"""


@needs_browser
def test_faulty_steps_badges_message_and_escaped_output(tmp_path):
    script = tmp_path / "late_then_crash.py"
    script.write_text(textwrap.dedent(LATE_THEN_CRASH))
    folder = tmp_path / "faulty"
    play_match("cantris", folder, f"{sys.executable} {script}", "builtin:random", seed=1,
               board=BOARDS / "cantris" / "6x3-1.txt",
               extra=("--set", "soft_time=0.5", "--set", "hard_time=10"))
    records = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    verdicts = [r["verdict"] for r in records]
    assert verdicts[0] == "LATE" and verdicts[-1] == "CRASH", verdicts
    crash = len(records)
    page = tmp_path / "faulty.html"
    assert referee("replay", folder, "--html", page).returncode == 0

    dom = dump_dom(page, f"#step={crash}", png=tmp_path / "faulty.png")
    badge = [a for a in dom.find(data_verdict="CRASH") if "badge" in a.get("class", "")]
    assert badge and all("fault" in a["class"] for a in badge)
    late = [a for a in dom.find(data_verdict="LATE") if "badge" in a.get("class", "")]
    assert late and all("late" in a["class"] for a in late)
    row = next(a for tag, a in dom.elements if tag == "tr" and a.get("data-step") == str(crash))
    assert "fault-row" in row.get("class", "") and "selected" in row.get("class", "")
    assert "CRASH" in dom.text("verdict-message")
    assert "exit status 3" in dom.text("verdict-message")
    assert "about to crash" in dom.text("details") and "Traceback: boom" in dom.text("details")
    # player output is text, never markup: no element came from it
    assert [tag for tag, _ in dom.elements].count("script") == 4  # data, helpers, drawing, page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom.source
    assert "&lt;b&gt;bold&lt;/b&gt;" in dom.source
    assert [tag for tag, _ in dom.elements].count("b") == 0
    assert "wins" in dom.text("result-headline") and "forfeit" in dom.text("result-reason")


@needs_browser
def test_a_name_cannot_turn_the_text_around_it_around(tmp_path):
    """A player named with U+202E (right-to-left override) turned around the
    rest of whatever line its name was in: the banner's 'wins', the step's
    heading.  Every name shown is in a <bdi>, which keeps what a name holds
    to itself, in the page as written (players, banner) and in what its
    script draws (the step's heading, the board's players).  (rlo.png, for a
    person.)"""
    rlo = "\u202e"
    names = [f"{rlo}ann", f"{rlo}bob"]
    config = tmp_path / "match.yaml"
    config.write_text(yaml.safe_dump({"game": "cantris", "players": list(PLAYERS), "names": names, "seed": 1,
                                      "board": str(BOARDS / "cantris" / "6x3-1.txt"),
                                      "out": str(tmp_path / "m")}, allow_unicode=True), encoding="utf-8")
    assert referee("play", "--config", config, "--quiet").returncode == 0
    winner = yaml.safe_load((tmp_path / "m" / "result.yaml").read_text())["winner"]
    page = tmp_path / "rlo.html"
    assert referee("replay", tmp_path / "m", "--html", page).returncode == 0

    dom = dump_dom(page, "#step=1", png=tmp_path / "rlo.png")
    assert dom.outside("bdi", rlo) == []
    bdi = [data for data, tags in dom.chunks if "bdi" in tags]
    assert bdi.count(names[0]) >= 3 and names[1] in bdi  # players, step 1's heading, the board's players
    assert winner is not None
    assert dom.text("result-headline") == f"p{winner} {names[winner - 1]} wins"
    assert f'<strong id="result-headline">p{winner} <bdi>{names[winner - 1]}</bdi> wins</strong>' in dom.source


# ----------------------------------------------------------------- controls
DRIVE = """
<script>
(function () {
  var seen = [];
  function now() { return document.body.getAttribute("data-current-step"); }
  function key(k) { document.dispatchEvent(new KeyboardEvent("keydown", {key: k, bubbles: true})); seen.push(now()); }
  key("ArrowRight"); key("ArrowRight"); key("ArrowLeft"); key("End"); key("Home");
  document.getElementById("next").click(); seen.push(now());
  document.getElementById("last").click(); seen.push(now());
  document.getElementById("prev").click(); seen.push(now());
  document.getElementById("first").click(); seen.push(now());
  document.querySelector('#moves-body tr[data-step="3"]').click(); seen.push(now());
  var slider = document.getElementById("slider");
  slider.value = 5; slider.dispatchEvent(new Event("input")); seen.push(now());
  seen.push(location.hash);
  document.body.setAttribute("data-drive", seen.join(","));
})();
</script>
"""


@needs_browser
def test_keys_buttons_move_list_and_slider_navigate(pages, tmp_path):
    folder, page = pages["quoridor"]
    last = len(recomputed(folder)[1]) - 1
    driven = tmp_path / "driven.html"
    driven.write_text(page.read_text(encoding="utf-8").replace("</body>", DRIVE + "</body>"),
                      encoding="utf-8")
    dom = dump_dom(driven, "#step=2")
    assert dom.body()["data-drive"].split(",") == [
        "3", "4", "3", str(last), "0", "1", str(last), str(last - 1), "0", "3", "5", "#step=5"]


VIEW_AS_2 = """
<script>
var s = document.getElementById("tsuro-viewer");
s.value = "2"; s.dispatchEvent(new Event("change"));
document.getElementById("next").click();   /* the choice holds from step to step */
</script>
"""


@needs_browser
def test_tsuro_hands_as_one_player_sees_them(pages, tmp_path):
    folder, page = pages["tsuro"]
    _, all_frames = recomputed(folder)
    k = len(all_frames) // 2
    state = all_frames[k + 1][1]
    driven = tmp_path / "viewer.html"
    driven.write_text(page.read_text(encoding="utf-8").replace("</body>", VIEW_AS_2 + "</body>"),
                      encoding="utf-8")
    dom = dump_dom(driven, f"#step={k}")
    assert dom.body()["data-current-step"] == str(k + 1)
    assert {a["data-player"] for a in dom.find(data_kind="hand-tile")} <= {"2"}
    assert len(dom.find(data_kind="hand-tile")) == len(state.hands[1])
    hidden = {a["data-player"] for a in dom.find(data_kind="hidden-hand")}
    assert hidden == {str(p) for p in range(1, len(state.hands) + 1) if p != 2}


def test_same_folder_gives_the_same_page_byte_for_byte(pages, tmp_path):
    folder, page = pages["tessella"]
    again = tmp_path / "again.html"
    assert referee("replay", folder, "--html", again).returncode == 0
    assert again.read_bytes() == page.read_bytes()


@needs_browser
def test_a_step_shows_the_time_bank_left(tmp_path):
    folder = tmp_path / "banked"
    play_match("cantris", folder, "builtin:random", "builtin:random", seed=2,
               board=BOARDS / "cantris" / "6x3-1.txt",
               extra=("--set", "time_bank=30", "--set", "increment=1"))
    records = [json.loads(line) for line in (folder / "log.jsonl").read_text().splitlines()]
    page = tmp_path / "banked.html"
    assert referee("replay", folder, "--html", page).returncode == 0
    dom = dump_dom(page, "#step=2", png=tmp_path / "banked.png")
    # The page rounds as JavaScript's Math.round does (half up), not as Python's
    # round (half to even): 30790.5 ms is shown as 30791.
    shown = math.floor(records[1]["bank_ms"] + 0.5)
    assert f"time bank left{shown} ms" in dom.text("details").replace("\n", "")
