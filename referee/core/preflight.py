"""Pre-flight: before the first step, check that every player command can
start at all.

Without it a mistyped path, a C++ source given instead of its binary or a
script without execute permission only shows up as a CRASH on every step, and
a student or TA reads a lost match instead of the one-line reason.  The checks
are about starting, never about playing: they look at the command's first word
(and, for a known interpreter, at the script it is given), not at its output.

Built-ins, ``human`` and game-specific kinds (Quoridor's ``module:``) are
resolved by their own code, which already refuses what it cannot find; their
command lines start with this Python and pass trivially.
"""
from __future__ import annotations

import functools
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Iterable, Sequence

from .errors import InputError
from .seatfiles import DECISION, VIEWS

WINDOWS = os.name == "nt"

# A source file given as the command: what to run first.
_SOURCES = {
    ".cpp": "g++ -std=c++14 -O2 -o {stem} {name}", ".cc": "g++ -std=c++14 -O2 -o {stem} {name}",
    ".cxx": "g++ -std=c++14 -O2 -o {stem} {name}", ".c": "gcc -O2 -o {stem} {name}",
    ".hpp": None, ".h": None, ".java": "javac {name}",
}
# A script given as the command: the interpreter that runs it.
_INTERPRETERS = {".py": "py" if WINDOWS else "python3", ".sh": "bash", ".js": "node",
                 ".rb": "ruby", ".pl": "perl", ".jar": "java -jar", ".php": "php", ".lua": "lua"}
# Interpreters whose first non-option argument is a script file.
_SCRIPT_RUNNERS = {"python", "python3", "py", "pypy3", "node", "ruby", "perl", "bash", "sh", "php",
                   "lua"}
_WINDOWS_EXECUTABLE = {".exe", ".com", ".bat", ".cmd"}


def check_players(players: Iterable[tuple[str, Sequence[str] | None]], base_dir: Path,
                  source: str | None = None) -> None:
    """Raise one InputError for the first player whose command cannot start.

    ``players`` holds (label, argv) pairs: the label names the player in the
    message (``player 2 ('./a.out')``), argv is the command line the runner
    would start, None for agents that start no process (a human)."""
    scanned: set[str] = set()  # source folders already looked at (two seats of one program)
    for label, argv in players:
        if not argv:
            continue
        problem = command_problem(list(argv), base_dir)
        if problem:
            if not WINDOWS and "\\" in label:  # the label quotes the command as given
                problem += " (on Linux and macOS a \\ in a command escapes the next character: write paths with /)"
            raise InputError(f"{label}: {problem}", source)
        stale = stale_binary(list(argv), base_dir)
        if stale:
            print(f"referee: warning: {label}: {stale}", file=sys.stderr)
        for warning in source_warnings(list(argv), base_dir, scanned):
            print(f"referee: warning: {label}: {warning}", file=sys.stderr)


def stale_binary(argv: list[str], base_dir: Path) -> str | None:
    """A compiled program older than its source beside it (``player`` and
    ``player.cpp``): the last edit was not built (a build that failed
    unnoticed), and the old program plays.  A warning, not an error."""
    word = _relative(argv[0], base_dir)
    if not _has_separator(word):
        return None
    binary = Path(word) if os.path.isabs(word) else base_dir / word
    stem = binary.with_suffix("") if binary.suffix.lower() == ".exe" else binary
    for suffix in (".cpp", ".cc", ".cxx", ".c"):
        source = stem.with_name(stem.name + suffix)
        try:
            if source.stat().st_mtime > binary.stat().st_mtime + 1:  # a second: copies keep times roughly
                return (f"{word} is older than {source.name} beside it: the last edit is not built "
                        f"(did the build fail?); the old program plays")
        except OSError:
            continue
    return None


# The names the protocol gives the files of a seat folder, as the referee
# writes and reads them: a program's source that names one in another case,
# or in another folder, reads nothing or writes where no one looks.
PROTOCOL_FILES = (*VIEWS, DECISION)
SNAPSHOTS = "step_logs"      # step_logs/step_<k>.txt
SNAPSHOT_PREFIX = "step_"
_SOURCE_SUFFIXES = frozenset((".py", ".cpp", ".cc", ".cxx", ".c", ".h", ".hpp", ".java", ".js", ".ts",
                              ".go", ".rs"))
SCAN_BYTES = 384 * 1024      # read at most this much source per check, in all
SCAN_FILE_BYTES = 128 * 1024  # and this much of any one file (its start)
SCAN_ENTRIES = 2000          # folder entries looked at per folder: a huge folder costs little
_LOWER_NAMES = tuple(n.lower() for n in (*PROTOCOL_FILES, SNAPSHOTS))
_LITERAL = {  # string literals on one line: "..." everywhere, '...' and `...` where they are strings
    "c": re.compile(r'"((?:[^"\\\n]|\\.)*)"'),
    "py": re.compile(r'"((?:[^"\\\n]|\\.)*)"|\'((?:[^\'\\\n]|\\.)*)\'|`([^`\n]*)`'),
}
_ESCAPE = re.compile(r"\\(.)")  # \n in "Board.txt\n" is no separator; \\ in "..\\Board.txt" is one
_SEPARATORS = re.compile(r"[\\/]+")


def source_warnings(argv: list[str], base_dir: Path, scanned: set[str] | None = None) -> list[str]:
    """Warnings about the program's own sources (the files beside its program
    or script, one folder deep, a bounded number of bytes): a string literal
    that names a protocol file in the wrong case (``"board.txt"``,
    ``"Decision.txt"``, ``"Step_logs/"``) or in another folder
    (``"../Board.txt"``).  Such a program gets no error when it opens the file:
    C++'s ifstream or Java's reader quietly read nothing, and the match is
    garbage or NO_DECISION.  At most one warning per source file (its first
    such line), never an exception; a folder without sources costs one
    listing."""
    scanned = set() if scanned is None else scanned
    folders, stems = _program_folders(argv, base_dir)
    budget = [SCAN_BYTES]
    warnings: list[str] = []
    for folder in folders:
        if folder in scanned:
            continue
        scanned.add(folder)
        for path in _sources(folder, stems):
            if budget[0] <= 0:
                return warnings
            found = _scan_source(path, budget)
            if found:
                line, literal, fixed, why = found
                warnings.append(f"{_shown_path(path, base_dir)}:{line}: \"{literal}\" should be "
                                f"\"{fixed}\": {why}")
    return warnings


def _program_folders(argv: list[str], base_dir: Path) -> tuple[list[str], set[str]]:
    """The folders of the program's files named on its command line (its
    binary, its script, a ``-cp`` folder), and the stems of those files
    (player for ./player: its source is looked at first).  Not the
    interpreter's folder, the referee's own (built-in players) nor a PATH
    folder: a built-in player's check costs a few stat calls."""
    folders: list[str] = []
    stems: set[str] = set()
    on_path: set[str] | None = None
    for word in argv:
        if word.startswith("-") or not word or "\0" in word:
            continue
        path = os.path.abspath(word if os.path.isabs(word) else os.path.join(base_dir, word))
        try:
            if os.path.isfile(path):
                folder = os.path.dirname(path)
                stem = os.path.splitext(os.path.basename(path))[0]
            elif os.path.isdir(path):
                folder, stem = path, ""
            else:
                continue
            if _own(folder):
                continue
            folder = os.path.realpath(folder)
        except (OSError, ValueError):
            continue
        if on_path is None:
            on_path = {os.path.abspath(p) for p in os.environ.get("PATH", "").split(os.pathsep) if p}
        if _own(folder) or folder in on_path:
            continue
        stems.add(stem)
        if folder not in folders:
            folders.append(folder)
    return folders, stems


@functools.lru_cache(maxsize=1)
def _own_folders() -> tuple[str, ...]:
    """The interpreter's and the referee's own folders (built-in players),
    as given and as resolved."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    roots = (sys.prefix, sys.base_prefix, sys.exec_prefix, package,
             os.path.join(os.path.dirname(package), "players"))
    return tuple(dict.fromkeys(p for root in roots for p in (os.path.abspath(root), os.path.realpath(root))))


def _own(folder: str) -> bool:
    return any(folder == own or folder.startswith(own + os.sep) for own in _own_folders())


def _sources(folder: str, stems: set[str]) -> list[Path]:
    """The source files in ``folder`` (not its subfolders), the program's own
    first (player.cpp for ./player), then by name."""
    found = []
    try:
        with os.scandir(folder) as entries:
            for count, entry in enumerate(entries):
                if count >= SCAN_ENTRIES:
                    break
                suffix = os.path.splitext(entry.name)[1].lower()
                if suffix in _SOURCE_SUFFIXES and entry.is_file():
                    found.append(Path(entry.path))
    except OSError:
        return []
    return sorted(found, key=lambda p: (p.stem not in stems, p.name))


def _scan_source(path: Path, budget: list[int]) -> tuple[int, str, str, str] | None:
    """The first line of ``path`` whose string literal names a protocol file
    wrongly: (line, literal, what it should be, why); None if none, or if
    the file cannot be read or is not text.  Reads at most its share of
    ``budget`` (bytes left), which it lowers."""
    try:
        with open(path, "rb") as f:
            data = f.read(min(SCAN_FILE_BYTES, budget[0]))
    except (OSError, ValueError):
        return None
    budget[0] -= len(data)
    if b"\0" in data:
        return None  # not a source after all
    text = data.decode("utf-8", "replace")
    lowered = text.lower()
    if not any(name in lowered for name in _LOWER_NAMES):
        return None  # nearly every file: one search per name
    suffix = path.suffix.lower()
    kind = "py" if suffix in (".py", ".js", ".ts", ".go") else "c"
    comment = ("#",) if suffix == ".py" else ("//", "/*", "*")
    for number, line in enumerate(text.splitlines(), start=1):
        low = line.lower()
        if not any(name in low for name in _LOWER_NAMES) or line.lstrip().startswith(comment):
            continue
        for match in _LITERAL[kind].finditer(line):
            literal = next(g for g in match.groups() if g is not None)
            problem = literal_problem(literal, suffix)
            if problem:
                return (number, literal[:80], *problem)
    return None


# What a program in each language gets from opening a file that is not there.
_QUIET_READERS = {".c": "C", ".h": "C or C++", ".cpp": "C++", ".cc": "C++", ".cxx": "C++", ".hpp": "C++",
                  ".java": "Java"}


def literal_problem(literal: str, suffix: str = "") -> tuple[str, str] | None:
    """(what ``literal`` should be, why) when it names a protocol file in the
    wrong case or in another folder than the program's own (where it runs);
    None when it names none, or names one rightly.  Why is said for the file
    (the decision is written, the rest read) and for the language of the
    source it is in (``suffix``): a Python program that writes "Decision.txt"
    was told a C++ or Java program reads nothing from it."""
    unescaped = _ESCAPE.sub(lambda m: "\\" if m.group(1) == "\\" else "", literal)
    parts = _SEPARATORS.split(unescaped)
    lowered = [p.lower() for p in parts]
    if not any(p in _LOWER_NAMES for p in lowered):
        return None
    proper = {name.lower(): name for name in (*PROTOCOL_FILES, SNAPSHOTS)}
    at = next(i for i, p in enumerate(lowered) if p in _LOWER_NAMES)
    fixed = [proper[lowered[at]], *parts[at + 1:]]
    if fixed[0] == SNAPSHOTS and len(fixed) > 1 and fixed[1].lower().startswith(SNAPSHOT_PREFIX):
        fixed[1] = SNAPSHOT_PREFIX + fixed[1][len(SNAPSHOT_PREFIX):]
    if fixed[0] != SNAPSHOTS:
        fixed = fixed[:1]  # Board.txt names a file: what came after it is not a folder (a stray \)
    cased = "/".join(fixed) != "/".join(parts[at:at + len(fixed)])
    elsewhere = any(p not in ("", ".") for p in parts[:at])
    if not cased and not elsewhere:
        return None
    if not elsewhere and fixed[0] == DECISION:
        why = (f"file names are case-sensitive: the referee reads {DECISION}, and what the program "
               "writes under another name is never read (NO_DECISION)")
    elif not elsewhere:
        quiet = _QUIET_READERS.get(suffix.lower())
        what = (f"a {quiet} program reads nothing from it, without an error" if quiet else
                "Python's open raises FileNotFoundError, a CRASH" if suffix.lower() == ".py" else
                "opening it fails")
        why = f"file names are case-sensitive: that file is not there ({what})"
    else:
        why = ("the program runs in its seat folder, which holds Board.txt, state.json, step_logs/ "
               "and its decision.txt: open them by these names alone")
    return "/".join(fixed), why


def _shown_path(path: Path, base_dir: Path) -> str:
    """``path`` as the user would write it: relative to where they are."""
    try:
        return str(path.relative_to(Path(base_dir).resolve()))
    except ValueError:
        return str(path)


def check_match(prepared) -> None:
    """The ``play`` pre-flight: every seat of a prepared match."""
    check_players(((f"player {i} ('{spec}')", getattr(agent, "argv", None))
                   for i, (spec, agent) in enumerate(zip(prepared.spec.players, prepared.agents), 1)),
                  Path(prepared.spec.base_dir))


def check_entrants(config) -> None:
    """The ``tournament`` pre-flight: every entrant, before the first game."""
    from .players import make_agent
    from .runner import Limits
    from .registry import get_game

    game = get_game(config.game)
    check_players(((f"entrant '{e.name}' ('{e.command}')",
                    getattr(make_agent(e.command, game, Limits(), config.base_dir), "argv", None))
                   for e in config.entrants), config.base_dir, str(config.path))


def command_problem(argv: list[str], base_dir: Path) -> str | None:
    """Why ``argv`` cannot start, in words that say what to do; None if it can."""
    argv = [_relative(word, base_dir) for word in argv]
    first = argv[0]
    if _has_separator(first):
        path = Path(first) if os.path.isabs(first) else base_dir / first
        return _file_problem(first, path) or _script_problem(first, argv[1:], base_dir)
    found = shutil.which(first)
    if found is None:
        local = base_dir / first
        if local.exists():
            return (_file_problem(first, local)
                    or f"'{first}' is not a command on PATH; to run the file in this folder, "
                       f"write '{_as_path(first)}'")
        other = {"python": "python3", "py": "python3", "python3": "py" if WINDOWS else "python"}.get(first)
        if other and shutil.which(other):
            return f"command '{first}' not found (not a file, not on PATH); this system has {other}: write '{other}'"
        return f"command '{first}' not found (not a file, not on PATH)"
    return _script_problem(first, argv[1:], base_dir)


def _relative(word: str, base_dir: Path) -> str:
    """A path inside ``base_dir`` as the user typed it (the agent made it
    absolute), so messages and suggested commands read as they would."""
    if not os.path.isabs(word):
        return word
    try:
        relative = str(Path(word).relative_to(base_dir.resolve()))
    except ValueError:
        return word
    return _as_path(relative)  # still a file here, never a command looked up on PATH


def _has_separator(word: str) -> bool:
    return "/" in word or (WINDOWS and "\\" in word) or os.path.isabs(word)


def _file_problem(word: str, path: Path) -> str | None:
    if not path.exists():
        hint = _missing_hint(word, path)
        return f"{word}: no such file{hint}"
    if path.is_dir():
        return f"{word} is a folder, not a program{_folder_hint(word, path)}"
    suffix = path.suffix.lower()
    if suffix in _SOURCES:
        build = _SOURCES[suffix]
        if build is None:
            return f"{word} is a header, not a program"
        binary = word[:-len(suffix)]
        line = build.format(stem=binary, name=word)
        run = f"java -cp {path.parent} {path.stem}" if suffix == ".java" else _as_path(binary)
        return f"{word} is source code: compile it first ({line}), then use --player '{run}'"
    if WINDOWS:
        if suffix in _WINDOWS_EXECUTABLE:
            return None
        return _interpreter_hint(word, suffix, "is not a Windows program")
    if not os.access(path, os.X_OK):
        return _interpreter_hint(word, suffix, "is not executable")
    return _shebang_problem(word, path)


def _as_path(word: str) -> str:
    """``player`` -> ``./player``: a command word that names a file here."""
    return word if _has_separator(word) else "." + os.sep + word


def _missing_hint(word: str, path: Path) -> str:
    """A near miss worth naming: the binary not built yet, or .exe forgotten.
    The build command names the files as ``word`` does (``./bots/player``:
    ``-o bots/player bots/player.cpp``), so it works where it was typed."""
    typed = word[2:] if word.startswith("." + os.sep) else word
    for suffix in (".cpp", ".cc", ".c"):
        source = path.with_suffix(suffix) if path.suffix != suffix else None
        if source is not None and source.is_file():
            build = _SOURCES[suffix].format(stem=typed, name=os.path.join(os.path.dirname(typed), source.name))
            return f" (but {source.name} is there: compile it first: {build})"
    if path.parent.is_dir():
        siblings = sorted(p.name for p in path.parent.iterdir() if p.stem == path.stem)
        if siblings:
            return f" (did you mean {siblings[0]}?)"
        cased = sorted(p.name for p in path.parent.iterdir() if p.name.lower() == path.name.lower())
        if cased:
            return f" (the folder has {cased[0]}: file names are case-sensitive)"
    return ""


def _folder_hint(word: str, path: Path) -> str:
    """A student's player folder (what check-bot and grade take) given to a
    command that runs a program: the command for the program in it."""
    inner = word.rstrip("/" + os.sep) + os.sep
    binary = path / ("player.exe" if WINDOWS else "player")
    if binary.is_file() and (WINDOWS or os.access(binary, os.X_OK)):
        command = f"'{inner}{binary.name}'"
    elif (path / "player.py").is_file():
        command = f"\"{_INTERPRETERS['.py']} {inner}player.py\""
    elif (path / "player.cpp").is_file():
        return (f"; compile the player.cpp in it first (g++ -std=c++14 -O2 -o {inner}player "
                f"{inner}player.cpp), then use --player '{inner}player'")
    else:
        return ""
    return f"; to run the player in it: --player {command} (check-bot and grade take the folder)"


def _interpreter_hint(word: str, suffix: str, what: str) -> str:
    interpreter = _INTERPRETERS.get(suffix)
    if interpreter:
        return f"{word} {what}; run it with its interpreter: --player \"{interpreter} {word}\""
    return f"{word} {what}; make it executable (chmod +x {word}) or name its interpreter"


def _shebang_problem(word: str, path: Path) -> str | None:
    """A script whose ``#!`` line names an interpreter that is not there (or
    ends in a Windows CR, which makes the kernel look for ``python3\\r``)."""
    try:
        with open(path, "rb") as f:
            head = f.read(256)
    except OSError as exc:
        return f"{word} cannot be read: {exc.strerror or exc}"
    if not head.startswith(b"#!"):
        return None
    line = head[2:].split(b"\n", 1)[0]
    if line.endswith(b"\r"):
        return (f"{word} has Windows line endings (CRLF): its #! line cannot start; "
                f"convert it (dos2unix {word}) or run it with its interpreter")
    words = line.decode("utf-8", "replace").split()
    if not words:
        return None
    interpreter = words[0]
    if os.path.basename(interpreter) == "env" and len(words) > 1:
        program = next((w for w in words[1:] if not w.startswith("-")), None)
        if program and shutil.which(program) is None:
            return f"{word}: its #! line asks for '{program}', which is not on PATH"
        return None
    if not os.path.exists(interpreter):
        return f"{word}: its #! line asks for {interpreter}, which does not exist"
    return None


def _script_problem(command: str, rest: list[str], base_dir: Path) -> str | None:
    """``python3 my.py``: the script must exist, or every step crashes."""
    name = Path(command).name.lower()
    if name.endswith(".exe"):
        name = name[:-4]
    python = name in ("py", "pypy", "pypy3") or name.startswith("python")  # python3.11, ...
    if python:
        at = _python_script(rest)
    elif name in _SCRIPT_RUNNERS:
        at = _first_argument(rest, base_dir)
    elif name == "java" and rest[:1] == ["-jar"] and len(rest) > 1:
        at = 1
    else:
        return None
    if at is None:
        return None
    script = rest[at]
    path = Path(script) if os.path.isabs(script) else base_dir / script
    runnable = path.is_file() or (python and path.is_dir() and (path / "__main__.py").is_file())
    if runnable and not _has_separator(script) and "." not in script:
        # players.py makes a path absolute only where it has a / or a dot:
        # this word reaches the player's own folder as it is, and names nothing there
        return (f"{command} {script}: the player runs in a folder of its own, where {script} is not "
                f"found; write '{command} {_as_path(script)}' to name the one here")
    if runnable:
        return None
    if path.is_dir():
        return f"{command} cannot run {script}: it is a folder, not a script{_folder_hint(script, path)}"
    return f"{command} cannot find {script}: no such file{_missing_hint(script, path) or _space_hint(command, rest[at:], base_dir)}"


def _space_hint(command: str, words: list[str], base_dir: Path) -> str:
    """A path with a space typed unquoted (``python3 my bots/p.py``) is split
    into words: the missing script is its first part."""
    for count in range(2, len(words) + 1):
        joined = " ".join(words[:count])
        if (Path(joined) if os.path.isabs(joined) else base_dir / joined).exists():
            return (f" ('{joined}' is there: a path with a space must be quoted inside the command: "
                    f"--player \"{command} '{joined}'\")")
    following = words[1] if len(words) > 1 else ""
    if following and not following.startswith("-") and (_has_separator(following) or Path(following).suffix):
        return (f" (if '{' '.join(words[:2])}' is one path with a space, quote it inside the command: "
                f"--player \"{command} '{' '.join(words[:2])}'\")")
    return ""


def _python_script(rest: list[str]) -> int | None:
    """Where in ``rest`` the script Python runs is: its first word that is
    neither an option nor an option's value is always a script (Python looks
    nothing up on PATH), whatever it looks like; None when Python runs no
    file (``-m``, ``-c``, ``-`` for standard input, ``--version``).  Only
    -W, -X and --check-hash-based-pycs take a value (``-I`` is isolated
    mode, a flag); options combine (``-uc``, ``-Wignore``)."""
    i = 0
    while i < len(rest):
        word = rest[i]
        if word == "--":
            return i + 1 if i + 1 < len(rest) else None
        if word == "-" or word in ("--version", "--help") or word.startswith("--help-"):
            return None
        if word.startswith("--"):
            i += 2 if word == "--check-hash-based-pycs" else 1
            continue
        if word.startswith("-"):
            for k, letter in enumerate(word[1:], start=1):
                if letter in "cmhV?":
                    return None
                if letter in "WX":
                    i += k == len(word) - 1  # its value is the next word
                    break
            i += 1
            continue
        return i
    return None


def _first_argument(rest: list[str], base_dir: Path) -> int | None:
    """Where in ``rest`` the script another interpreter runs is, if it names
    a file; None when it runs no file (``-e``, ``-c``, node's ``-p``) or its
    first argument does not look like a path (no folder, no extension) nor
    names a folder here, which is left to the interpreter (``bash`` looks a
    bare name up on PATH)."""
    i = 0
    while i < len(rest):
        word = rest[i]
        if word in ("-c", "-e", "-E", "--eval", "-p", "--print", "-"):
            return None
        if word in ("-r", "--require", "-I"):  # an option with a value (node's, ruby's and perl's)
            i += 2
            continue
        if word.startswith("-"):
            i += 1
            continue
        return i if (_has_separator(word) or Path(word).suffix or (base_dir / word).is_dir()) else None
    return None


if __name__ == "__main__":  # pragma: no cover - a quick manual check
    print(command_problem(sys.argv[1:], Path.cwd()) or "ok")
