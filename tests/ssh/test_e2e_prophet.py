"""End to end: two real ``ssh`` clients and a bot play a whole game of Prophet to the result.

Ada plays in English; Bo's client sends ``LANG=de_DE.UTF-8`` (``-o SendEnv=LANG``), so his app
speaks German from the first screen. Ada opens the table with the shortest game the form
allows (3 players, cap 2: a round of 1 card, then one of 2), Bo joins it from the lobby and a
bot takes the third seat. Whenever their seat has the turn, each presses what the footer
offers. The screens are then checked against each other and against the rules: the trump, the
bids, tricks won against the bid, every round's points, the result and its chips.

Each screen is read through the app's own catalogs (a message becomes a pattern), so the test
checks that Bo's screen says what the German catalog says, and a reworded translation does not
break it; the German words a player must see ("Trumpf", "Stich") are checked as such too. The
game is played once, by a module fixture; the tests read what it recorded.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import pytest

from gambit_tui.i18n import translations

from .conftest import needs_openssh
from .harness import ServeProcess, SSHTerminal, ssh_command
from .test_e2e import Player

pytestmark = needs_openssh

NAMES = ("Ada", "Bo", "Bot 3")
STAKE = 10
START_CHIPS = 1000
SUITS = {"♠": "Spades", "♥": "Hearts", "♦": "Diamonds", "♣": "Clubs"}
#: What a placeholder may stand for; any other stands for some text.
SLOTS = {"n": r"\d+", "round": r"\d+", "rounds": r"\d+", "max": r"\d+", "card": r"\S+"}

#: The prompts of a player's own decision.
DECISIONS = (
    "Your bid: how many tricks will you take? (0 to {max})",
    "Your turn: lead a card.",
    "Your turn: follow suit ({suit}).",
    "Your turn: you have no {suit}, so play any card.",
)
DEAL = (
    "Round {round}: {dealer} deals {n} card each. Trump: {card}.",
    "Round {round}: {dealer} deals {n} cards each. Trump: {card}.",
)

Message = str | tuple[str, str]  # a msgid, or a singular and plural msgid


def template(text: str) -> str:
    """A translated message as a regex: each ``{placeholder}`` a group of that name."""
    out, pos = [], 0
    for match in re.finditer(r"\{(\w+)\}", text):
        out.append(re.escape(text[pos : match.start()]))
        out.append(f"(?P<{match[1]}>{SLOTS.get(match[1], '.+?')})")
        pos = match.end()
    out.append(re.escape(text[pos:]))
    return "".join(out)


class Lang:
    """One language's screens, read through the app's catalog for it."""

    def __init__(self, code: str) -> None:
        self.code = code
        self.catalog = translations(code)

    def __call__(self, msgid: str) -> str:
        return self.catalog.gettext(msgid)

    def patterns(self, message: Message) -> list[re.Pattern[str]]:
        if isinstance(message, str):
            texts = [self(message)]
        else:  # every plural form (n = 5 for Ukrainian's third)
            texts = [self.catalog.ngettext(*message, n) for n in (1, 2, 5)]
        return [re.compile(template(text)) for text in dict.fromkeys(texts)]

    def line(self, message: Message, line: str) -> dict[str, str] | None:
        """The placeholders of ``line`` if it is exactly ``message``."""
        for pattern in self.patterns(message):
            if match := pattern.fullmatch(line):
                return match.groupdict()
        return None

    def find(self, message: Message, screen: str) -> dict[str, str] | None:
        """The placeholders of ``message`` where a line of the screen shows it."""
        for text in screen.splitlines():
            for pattern in self.patterns(message):
                if match := pattern.search(text):
                    return match.groupdict()
        return None


ENGLISH, GERMAN = Lang("en"), Lang("de")


@dataclass
class Round:
    """One round as a player's screen showed it at their decisions."""

    cards: int = 0
    trump: str = ""
    suit: str = ""
    bids: dict[str, int] = field(default_factory=dict)


class Seat(Player):
    """A player at an ``ssh`` client in one language, who keeps what their screen showed."""

    def __init__(
        self, serve: ServeProcess, name: str, lang: Lang, rows: int = 24, locale: str = ""
    ) -> None:
        extra = ["-o", "SendEnv=LANG"] if locale else []
        env = {"LANG": locale} if locale else None
        self.term = SSHTerminal(
            ssh_command(serve.port, name, extra=extra), cols=80, rows=rows, env=env
        )
        self.name = name
        self.lang = lang
        self.rounds: dict[int, Round] = {}
        self.screens: list[str] = []  # the screen at each of this player's key presses
        self.result = ""  # the result dialog
        self.table = ""  # the table after the result closed: the end of the game's log
        self.sheet = ""  # the score sheet (only Ada opens it)

    def drain(self) -> str:
        """The screen once nothing more arrives for a moment (a frame is not read half drawn)."""
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            before = len(self.term.raw)
            if not self.term.pump(0.03) or len(self.term.raw) == before:
                break
        return self.term.text()

    def has_turn(self, screen: str) -> bool:
        """The seats box marks this player's seat as the one to act."""
        return re.search(rf"^│ ▶ {re.escape(self.name)}\b(?! \d)", screen, re.M) is not None

    def showing_result(self, screen: str) -> bool:
        head = [self.lang(w) for w in ("Player", "Score", "Chips")]
        return re.search(r"#\s+" + r"\s+".join(map(re.escape, head)), screen) is not None

    def observe(self, screen: str) -> None:
        """Record the round, the trump and (once everyone has bid) the bids on screen."""
        self.screens.append(screen)
        lang = self.lang
        bar = None
        for cards in lang.patterns(("{n} card", "{n} cards")):
            pattern = template(lang("Round {round} of {rounds}")) + " · " + cards.pattern
            if bar := re.search(pattern, screen):
                break
        trump = lang.find("Trump {card} ({suit})", screen)
        assert bar and trump, screen
        got = self.rounds.setdefault(int(bar["round"]), Round())
        got.cards, got.trump, got.suit = int(bar["n"]), trump["card"], trump["suit"]
        seats = seat_rows(screen, lang)
        if all(row["bid"] is not None for row in seats.values()):
            got.bids = {name: row["bid"] for name, row in seats.items()}

    def chips(self) -> int:
        """The player's chips, as the header line shows them."""
        header = self.term.text().splitlines()[0]
        found = self.lang.find("{chips} chips", header.split(" · ", 1)[1])
        assert found, header
        return int(re.sub(r"\D", "", found["chips"]))


def seat_rows(screen: str, lang: Lang) -> dict[str, dict[str, Any]]:
    """The seats box: each name's dealer mark, bid (None before it), tricks won and total."""
    head = r"\s+".join(re.escape(lang(w)) for w in ("Bid", "Won", "Total"))
    assert re.search(head, screen), screen
    names = "|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True))
    row = re.compile(
        rf"^│ [▶ ] (?P<name>{names})(?:{re.escape(lang(' (you)'))})?\s+"
        rf"(?P<dealer>{re.escape(lang('D'))}\s+)?"
        r"(?P<bid>—|\d+)\s+(?P<won>\d+)\s+(?P<total>\d+)\b"
    )
    rows: dict[str, dict[str, Any]] = {}
    for line in screen.splitlines():
        if match := row.match(line):
            rows[match["name"]] = {
                "dealer": bool(match["dealer"]),
                "bid": None if match["bid"] == "—" else int(match["bid"]),
                "won": int(match["won"]),
                "total": int(match["total"]),
            }
    assert set(rows) == set(NAMES), screen
    return rows


def log_lines(screen: str, lang: Lang) -> list[str]:
    """The text in the log box, line by line."""
    lines = screen.splitlines()
    title = f"╭─ {lang('Log')} ─"
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    out = []
    for line in lines[start + 1 :]:
        if line.startswith("╰"):
            break
        if text := line[1:-1].strip():
            out.append(text)
    return out


def prompt(screen: str) -> str:
    """The prompt bar (the question, then a hint) as one line, however it wrapped."""
    lines = screen.splitlines()
    bottom = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    return " ".join(line.strip() for line in lines[bottom + 1 : -1] if line.strip())


def points(text: str) -> dict[str, int]:
    """ "Ada 10, Bo 0, Bot 3 10" as a dict."""
    out = {}
    for part in text.split(", "):
        name, _, value = part.rpartition(" ")
        out[name] = int(value)
    return out


def result_rows(screen: str, lang: Lang) -> list[tuple[int, str, int, int]]:
    """The result dialog: place, name, score, chips won or lost, in its order."""
    names = "|".join(re.escape(n) for n in sorted(NAMES, key=len, reverse=True))
    row = re.compile(
        rf"│\s+(\d)\s+({names})(?: {re.escape(lang('(you)'))})?\s+(\d+)\s+([+-]?\d+)\s"
    )
    return [
        (int(m[1]), m[2], int(m[3]), int(m[4]))
        for line in screen.splitlines()
        if (m := row.search(line))
    ]


# --- playing ---------------------------------------------------------------------------------


def pick(player: Seat, label: str, value: str) -> None:
    """Set the focused drop-down of the new-table form to ``value`` (one step up per try)."""
    for _try in range(6):
        if re.search(rf"{label}\s+{re.escape(value)}\s+▼", player.term.text()):
            return
        player.press("\r")
        player.term.wait_for(lambda t: "Dismiss menu" in t.splitlines()[-1])
        player.press("\x1b[A\r")
        player.term.wait_for(lambda t: "Dismiss menu" not in t.splitlines()[-1])
        player.settle(0.2)
    raise AssertionError(f"could not choose {value} for {label}:\n{player.term.text()}")


def open_table(ada: Seat) -> str:
    """Ada opens a Prophet table for three with a cap of 2 cards; returns its number."""
    ada.press("n")
    ada.wait_for("New table")
    ada.settle()
    pick(ada, "Game", "Prophet")
    ada.press("\t")
    pick(ada, "Players", "3")
    # Players → Stake, Timer, Who may join, Highest rating, Duplicate set, Deck, Cards per
    # round, Cap: one Tab a field. The field selects its text on focus, so a digit replaces
    # the 0.
    ada.press("\t" * 8)
    ada.settle(0.2)
    ada.press("2")
    ada.wait_for(r"Cap\s+2\s")
    ada.press("\x13")  # ctrl+s: create
    screen = ada.wait_for(r"Table \d+ · stake")
    assert "Prophet · schedule ascending" in screen
    return re.search(r"Table (\d+) · stake", screen).group(1)


def enter_lobby(player: Seat, language: str) -> None:
    """Through the welcome screen, which names the player's language from the start."""
    lang = player.lang
    player.wait_for(
        rf"{lang('Your name')}(?s:.*){lang('Language')}(?s:.*){language}"
        rf"(?s:.*){lang('Enter the lobby')}"
    )
    player.settle()
    player.press("\r")
    player.wait_for(lang("Lobby chat"))


def join(player: Seat, number: str, owner: str) -> None:
    """Select table ``number`` in the lobby's list and join it."""
    lang = player.lang
    screen = player.wait_for(rf"│ {number}\s+Prophet\s")
    rows = [line for line in screen.splitlines() if re.match(r"│ \d+\s+\S", line)]
    index = next(i for i, line in enumerate(rows) if re.match(rf"│ {number}\s", line))
    player.settle()
    player.press("\x1b[B" * index)
    player.wait_for(
        re.escape(lang("Table {id}, opened by {owner}.").format(id=number, owner=owner))
    )
    player.press("j")
    player.wait_for(re.escape(lang("Table {id}").format(id=number) + " · "))


def play_to_the_result(table: list[Seat], timeout: float = 60.0) -> None:
    """Whenever the seats box gives a player the turn, they press what the footer offers:
    ⏎ (Bid / Play) when the choice under the cursor is legal, else → to the next choice."""
    done: set[str] = set()
    pressed: dict[str, tuple[str, float]] = {}
    deadline = time.monotonic() + timeout
    while len(done) < len(table):
        assert time.monotonic() < deadline, "\n\n".join(p.term.text() for p in table)
        for player in table:
            if player.name in done:
                continue
            screen = player.drain()
            if player.showing_result(screen):
                player.result = screen
                done.add(player.name)
                continue
            if not player.has_turn(screen):
                continue
            footer = screen.splitlines()[-1]
            key = "\r" if "⏎" in footer else "\x1b[C" if "←→" in footer else None
            last = pressed.get(player.name)
            now = time.monotonic()
            if key is None or (last and last[0] == screen and now - last[1] < 2.0):
                # The screen is not ready yet, or the last key has yet to show (pressed again
                # too soon on a slow machine, a last card's ⏎ closed the result it brought).
                continue
            player.observe(screen)
            player.press(key)
            pressed[player.name] = (screen, now)


def close_result(player: Seat) -> None:
    """Close the result (⏎) and keep the table, with the end of the game in its log."""
    lang = player.lang
    assert player.result.splitlines()[-1].startswith("⏎ " + lang("Close")), player.result
    player.press("\r")
    over = "The game is over. Highest total: {names}."
    player.table = player.term.wait_for(
        lambda t: (
            not player.showing_result(t)
            and any(lang.line(over, line) for line in log_lines(t, lang))
        )
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One whole game, played once for the tests below: Ada and Bo with what they saw."""
    server = ServeProcess(tmp_path_factory.mktemp("serve"), "--bot-delay", "0.1")
    # Ada's window is tall enough for the log of the whole game (23 lines).
    ada = Seat(server, "Ada", ENGLISH, rows=44)
    bo = Seat(server, "Bo", GERMAN, locale="de_DE.UTF-8")
    try:
        enter_lobby(ada, "English")
        enter_lobby(bo, "Deutsch")
        number = open_table(ada)
        join(bo, number, owner="Ada")
        ada.wait_for(r"│\s+Bo\s")
        ada.press("b")  # a bot in the third seat
        ada.wait_for("Bot 3")
        ada.settle()
        ada.press("s")
        play_to_the_result([ada, bo])
        # The next game starts 2 s after the last of them closes the result (9 s after the
        # game at the latest): Ada reads the game's end and its score sheet while Bo still
        # has the result open, then Bo closes it and reads his table at once.
        close_result(ada)
        ada.press("t")
        ada.sheet = ada.wait_for(r"Score sheet(?s:.*)Total\s+\d+\s+\d+\s+\d+")
        close_result(bo)
        yield {"Ada": ada, "Bo": bo}
    finally:
        ada.close()
        bo.close()
        assert server.stop() == 0, server.log()
        assert "Traceback" not in server.log(), server.log()


# --- what the screens showed -----------------------------------------------------------------


def rounds_in_log(player: Seat) -> dict[int, list[str]]:
    """The log's lines at the end, per round: from each round's deal line to the next."""
    out: dict[int, list[str]] = {}
    current = 0
    for line in log_lines(player.table, player.lang):
        if deal := player.lang.line(DEAL, line):
            current = int(deal["round"])
        out.setdefault(current, []).append(line)
    return out


def scored(player: Seat) -> dict[int, dict[str, int]]:
    """Every round's points, as the log at the end announces them."""
    out = {}
    for line in log_lines(player.table, player.lang):
        if got := player.lang.line("Round {round} scored: {scores}.", line):
            out[int(got["round"])] = points(got["scores"])
    return out


def test_both_see_the_same_trump_in_their_language(played):
    ada, bo = played["Ada"], played["Bo"]
    # The cap of 2 on the ascending schedule: a round of 1 card, then a round of 2.
    assert {r: got.cards for r, got in ada.rounds.items()} == {1: 1, 2: 2}
    assert {r: got.cards for r, got in bo.rounds.items()} == {1: 1, 2: 2}
    for number in (1, 2):
        mine, his = ada.rounds[number], bo.rounds[number]
        assert mine.trump == his.trump
        assert mine.suit == SUITS[mine.trump[-1]]  # "Trump 7♠ (Spades)"
        assert his.suit == GERMAN(SUITS[his.trump[-1]])  # "Trumpf 7♠ (Pik)"
    # Ada's log names the same trump, and the cards dealt, in each round's deal line.
    deals = [ENGLISH.line(DEAL, line) for line in log_lines(ada.table, ENGLISH)]
    assert [(d["round"], d["n"], d["card"]) for d in deals if d] == [
        ("1", "1", ada.rounds[1].trump),
        ("2", "2", ada.rounds[2].trump),
    ]


def test_the_bids_follow_the_rules_and_agree_everywhere(played):
    ada, bo = played["Ada"], played["Bo"]
    logged = {n: lines for n, lines in rounds_in_log(ada).items() if n}
    assert set(logged) == {1, 2}
    for number, lines in logged.items():
        cards = ada.rounds[number].cards
        dealer = ENGLISH.line(DEAL, lines[0])["dealer"]
        bids = [got for line in lines if (got := ENGLISH.line("{name} bids {n}.", line))]
        # Everyone bids once, clockwise from the dealer's left: the dealer bids last.
        assert sorted(got["name"] for got in bids) == sorted(NAMES)
        assert bids[-1]["name"] == dealer
        said = {got["name"]: int(got["n"]) for got in bids}
        assert all(0 <= bid <= cards for bid in said.values())
        # The dealer may not make the bids add up to the tricks: someone must miss.
        assert sum(said.values()) != cards
        # Both seats boxes showed the same bids while the cards were played.
        assert ada.rounds[number].bids == said
        assert bo.rounds[number].bids == said


def test_tricks_against_bids_make_the_result(played):
    ada, bo = played["Ada"], played["Bo"]
    announced = scored(ada)
    assert set(announced) == {1, 2}
    assert scored(bo).get(2) == announced[2]
    for number, got in announced.items():
        bids = ada.rounds[number].bids
        # Ruling 6: exactly the bid scores 10 + the bid, anything else 0.
        assert all(got[name] in (0, 10 + bids[name]) for name in NAMES), (number, got, bids)
    # The last round stays in the seats box: tricks won against each bid, and the totals.
    totals = {name: sum(r[name] for r in announced.values()) for name in NAMES}
    for player in (ada, bo):
        seats = seat_rows(player.table, player.lang)
        assert sum(row["won"] for row in seats.values()) == 2  # round 2: two tricks
        for name, row in seats.items():
            assert row["bid"] == ada.rounds[2].bids[name]
            expected = 10 + row["bid"] if row["won"] == row["bid"] else 0
            assert announced[2][name] == expected, (name, row)
            assert row["total"] == totals[name]
    # The score sheet: each round's cards and points, and the totals.
    sheet = {
        m[1]: [int(v) for v in m[2].split()]
        for line in ada.sheet.splitlines()
        if (m := re.search(r"│\s+(\d|Total)\s+((?:\d+\s+){2,3}\d+)\s*│", line))
    }
    assert sheet["1"] == [1, *(announced[1][n] for n in NAMES)]
    assert sheet["2"] == [2, *(announced[2][n] for n in NAMES)]
    assert sheet["Total"] == [totals[n] for n in NAMES]

    # The result: everyone by total; the highest total takes the pot (shared when tied).
    best = max(totals.values())
    winners = [name for name in NAMES if totals[name] == best]
    pot = STAKE * len(NAMES)
    for player in (ada, bo):
        rows = result_rows(player.result, player.lang)
        assert [place for place, *_ in rows] == [1, 2, 3], player.result
        assert {name: score for _, name, score, _ in rows} == totals
        assert [score for _, _, score, _ in rows] == sorted(totals.values(), reverse=True)
        won = {name: chips for _, name, _, chips in rows}
        for name in NAMES:
            share = pot // len(winners) if name in winners else 0
            assert won[name] == share - STAKE, (name, rows)
        over = player.lang.find("The game is over. Highest total: {names}.", player.table)
        assert over and set(over["names"].split(", ")) == set(winners)
        # The chips went where the result says: the header shows the new balance.
        assert player.chips() == START_CHIPS + won[player.name]


def test_bo_plays_in_german(played):
    bo = played["Bo"]
    assert bo.screens, "Bo never had a decision"
    # The words a German player expects are in the catalog the app reads.
    assert GERMAN("Trump {card} ({suit})").startswith("Trumpf ")
    assert "Stich" in GERMAN("{name} wins the trick.")
    you = "Bo" + GERMAN(" (you)")
    for screen in bo.screens:
        # The round bar names the trump in German, the prompt asks in German, in the words
        # of the German catalog, and nothing on the table is left in English.
        assert re.search(r"\bTrumpf \S+ \((Pik|Herz|Karo|Kreuz)\)", screen), screen
        assert you in screen
        assert any(re.match(template(GERMAN(m)), prompt(screen)) for m in DECISIONS), screen
        assert not re.search(r"\bTrump\b|\bYour\b|\bBids?\b|\bTricks?\b|\bRound\b", screen)
    keys = {screen.splitlines()[-1].split("  ")[0] for screen in bo.screens}
    assert "⏎ " + GERMAN("Bid") in keys and "⏎ " + GERMAN("Play") in keys, keys
    # His log (its last lines at each of his decisions, and at the end) is in German.
    lines = {line for screen in [*bo.screens, bo.table] for line in log_lines(screen, GERMAN)}
    for message in (DEAL, "{name} bids {n}.", "{name} plays {card}.", "{name} wins the trick."):
        assert any(GERMAN.line(message, line) for line in lines), (message, lines)
    assert any("Stich" in line for line in lines)
    assert f"Bo {GERMAN('(you)')}" in bo.result


def test_the_log_tells_every_trick(played):
    """Ada's log holds the whole game: each card played once, each trick's winner, and every
    round's points follow from the tricks its log shows against the bids."""
    ada = played["Ada"]
    announced = scored(ada)
    for number, lines in rounds_in_log(ada).items():
        if number == 0:
            continue
        cards = ada.rounds[number].cards
        plays = [
            got["card"] for line in lines if (got := ENGLISH.line("{name} plays {card}.", line))
        ]
        assert len(plays) == len(set(plays)) == cards * len(NAMES), (number, lines)
        wins = Counter(
            got["name"] for line in lines if (got := ENGLISH.line("{name} wins the trick.", line))
        )
        assert sum(wins.values()) == cards, (number, lines)
        bids = ada.rounds[number].bids
        for name in NAMES:
            expected = 10 + bids[name] if wins[name] == bids[name] else 0
            assert announced[number][name] == expected, (number, name, lines)
        assert (
            sum(ENGLISH.line("Round {round} scored: {scores}.", line) is not None for line in lines)
            == 1
        )
