"""End to end: one real ``ssh`` client in Ukrainian plays a whole deal of Fortunes with bots.

Oksana's client sends ``LANG=uk_UA.UTF-8`` (``-o SendEnv=LANG``), so her app speaks Ukrainian
from the first screen. She opens a Fortunes table of a single deal (the form's default is a
rubber of four deals; the single deal is marked as favouring the dealer's team), fills the
three other seats with bots and starts; whenever her seat has the turn she presses
what the footer offers (⏎ when the card under the cursor may be played, else → to the next
card) until the reading of the deal comes up.

The server deals from a fixed seed (``gambit serve --seed``), so the deal, the first dealer and
every bot's card are the same each run; in this deal a bot's Star has flipped the direction of
a trick before Oksana plays to it. The screens are checked against the rules (RULINGS.md,
Fortunes): the direction marker at each of her decisions against the leader's team and the
Stars on the table, the won tricks against the reading, and the reading's 19 tricks, points,
scores and pot. Every Ukrainian word is read from the app's Ukrainian catalog
(``gambit_tui/locale/uk``), never written here, so a reworded translation does not break the
test and a missing one does."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

import pytest

from gambit_tui.fortunes_text import COMPASS, COMPASS_SHORT, STAR_SYMBOL, SUIT_SYMBOLS

from .conftest import needs_openssh
from .harness import ServeProcess
from .test_e2e_prophet import Lang, Seat, enter_lobby, template

pytestmark = needs_openssh

#: The deal: with this seed a bot's Star flips a trick before Oksana plays to it.
SEED = 36
NAME = "Oksana"
BOTS = ("Бот 2", "Бот 3", "Бот 4")
STAKE = 10
START_CHIPS = 1000
TRICKS = 19
UK = Lang("uk")

#: The compass points, East first (the dealer) and clockwise, and their short forms.
POINTS = [UK(point) for point in COMPASS]
LETTERS = [UK(letter) for letter in COMPASS_SHORT]
HIGH, LOW = UK("HIGH"), UK("LOW")
#: The single deal as the form offers it: marked as favouring the dealer's team (ruling 11).
SINGLE_MARKED = UK("{choice} ({favours})").format(
    choice=UK("single deal"), favours=UK("favours the dealer's team")
)
#: A card face as the app draws it in Unicode: "Rh♣", "10♥", "★7".
CARD = rf"(?:(?:A|10|[2-9]|H|K|Rg|Rh)[{''.join(SUIT_SYMBOLS.values())}]|{STAR_SYMBOL}\d+)"
MARK = "[✓✗]"
SIGNED = r"(?:[+−]\d+|0)"


def signed(text: str) -> int:
    """ "+14", "−3" (a real minus sign) or "0" as a number."""
    return -int(text[1:]) if text.startswith("−") else int(text.lstrip("+"))


def fmt(n: int) -> str:
    """A score as the app writes it: "+14", "−3", "0"."""
    return f"+{n}" if n > 0 else (f"−{-n}" if n < 0 else "0")


def start_of(text: str) -> str:
    """A regex for a translated message up to its second placeholder (the trick number is
    the first)."""
    cut = [m.start() for m in re.finditer(r"\{\w+\}", text)]
    return template(text[: cut[1]] if len(cut) > 1 else text)


def strength(card: str, direction: str) -> int:
    """Ruling 9: won high, Ace 1 … 10, Herald 11, Knight 12, Riga 13, Righ 14, a Star its
    number; won low, the scale turned over (Ace 14 … Righ 1, a Star 21 minus its number)."""
    if card.startswith(STAR_SYMBOL):
        value, turn = int(card[1:]), 21
    else:
        rank = card[:-1]
        value, turn = {"A": 1, "H": 11, "K": 12, "Rg": 13, "Rh": 14}.get(rank) or int(rank), 15
    return value if direction == "high" else turn - value


def arrow(direction: str) -> str:
    """The direction marker as the compass draws it: "▲ СТАРША" / "▼ МОЛОДША"."""
    return f"▲ {HIGH}" if direction == "high" else f"▼ {LOW}"


def other(direction: str) -> str:
    return "low" if direction == "high" else "high"


# --- reading the table screen -----------------------------------------------------------------


def compass(screen: str) -> list[str]:
    """The compass box's eight lines, inside its border (North on top, South at the bottom)."""
    lines = screen.splitlines()
    assert lines[1].startswith("╭─ " + UK("Fortunes") + " ─"), screen
    return [line[1:43] for line in lines[2:10]]


def status(screen: str) -> list[str]:
    """The deal box right of the compass, line by line."""
    lines = screen.splitlines()
    assert re.match(r"╭─ " + re.escape(UK("Deal")) + " ─", lines[1][44:]), screen
    return [line[44:].strip("│ ") for line in lines[2:10]]


def prompt_of(screen: str) -> str:
    """The question's first line: under the hand's box (the footer under it takes one row or
    two)."""
    lines = screen.splitlines()
    bottom = max(i for i, line in enumerate(lines) if line.startswith("╰"))
    return lines[bottom + 1]


@dataclass
class Row:
    """One seat's row of the won-tricks box."""

    letter: str
    name: str
    tricks: int
    score: int
    shown: list[tuple[str, str]]  # the newest tricks: top card and mark
    cut: bool  # older tricks left out for room


def won_box(screen: str) -> dict[str, Row]:
    """The won-tricks box: a row per seat, East first, by compass letter."""
    names = "|".join(re.escape(n) for n in (NAME, *BOTS))
    letters = "|".join(map(re.escape, LETTERS))
    pattern = re.compile(
        rf"^│ (?P<letter>{letters}) (?P<name>{names})\s+(?P<tricks>\d+)\s+(?P<score>{SIGNED})"
        r" │ (?P<rest>.*?)\s*│$"
    )
    rows = {}
    for line in screen.splitlines():
        if match := pattern.match(line):
            rest = match["rest"]
            rows[match["letter"]] = Row(
                match["letter"],
                match["name"],
                int(match["tricks"]),
                signed(match["score"]),
                re.findall(rf"({CARD})({MARK})", rest),
                rest.startswith("…"),
            )
    assert list(rows) == LETTERS, screen
    return rows


@dataclass
class Decision:
    """Oksana's screen when she played a card: the trick so far as the screen showed it."""

    screen: str
    trick: int
    led: str | None  # the led suit's symbol, None when she leads
    stars: int  # Stars on the table
    compass_direction: str  # the marker between the seats: "high" or "low"
    status_direction: str  # the deal box's first line
    flipped: int | None  # "flipped ×n" in the deal box, None when it does not say


def read_decision(screen: str) -> Decision:
    box, deal = compass(screen), status(screen)
    trick = re.fullmatch(template(UK("Trick {n}/{total}")), deal[1].split(" · ")[0])
    assert trick and trick["total"] == str(TRICKS), deal
    led = re.search(re.escape(UK("led")) + r" (\S)", box[3])
    cards = " ".join(box[i] for i in (2, 4, 5))  # North's, West's and East's, South's card
    middle = re.findall(rf"([▲▼]) ({re.escape(HIGH)}|{re.escape(LOW)})\b", box[4])
    assert len(middle) == 1, box
    flipped = re.search(template(UK("flipped ×{n}")), deal[0])
    head = deal[0].split(" · ")[0]
    assert head in (f"▲ {UK('HIGH wins')}", f"▼ {UK('LOW wins')}"), deal
    return Decision(
        screen=screen,
        trick=int(trick["n"]),
        led=led[1] if led else None,
        stars=len(re.findall(rf"{STAR_SYMBOL}\d+", cards)),
        compass_direction="high" if middle[0][0] == "▲" else "low",
        status_direction="high" if head.startswith("▲") else "low",
        flipped=int(flipped["n"]) if flipped else None,
    )


# --- the reading ------------------------------------------------------------------------------


@dataclass
class Trick:
    """One line of the reading."""

    n: int
    letter: str
    name: str
    top: str
    mark: str
    word: str
    points: int


def reading_tricks(screen: str) -> list[Trick]:
    """The reading's won tricks, in their order (two columns of up to ten)."""
    names = "|".join(re.escape(n) for n in (NAME, *BOTS))
    letters = "|".join(map(re.escape, LETTERS))
    words = f"{re.escape(UK('well'))}|{re.escape(UK('ill'))}"
    pattern = re.compile(
        rf"(\d+)\s+({letters}) ({names})\s+({CARD})\s+({MARK}) ({words})\s+({SIGNED})(?!\S)"
    )
    found = [
        Trick(int(m[1]), m[2], m[3], m[4], m[5], m[6], signed(m[7]))
        for line in screen.splitlines()
        for m in pattern.finditer(line)
    ]
    return sorted(found, key=lambda t: t.n)


def unboxed(screen: str) -> str:
    """The screen without the borders of its boxes, line by line (the text in them)."""
    return "\n".join(line.strip("│ ") for line in screen.splitlines())


def is_reading(screen: str) -> bool:
    return f"╭─ {UK('The reading')} ─" in screen


# --- playing ----------------------------------------------------------------------------------


class Player(Seat):
    """Oksana at her ``ssh`` client, keeping what her screen showed."""

    def __init__(self, serve: ServeProcess) -> None:
        # 44 rows: the notices (a Star flipping a trick) stack up in the bottom right corner,
        # clear of the compass, the deal box and the won tricks.
        super().__init__(serve, NAME, UK, rows=44, locale="uk_UA.UTF-8")
        self.welcome = ""
        self.form = ""
        self.menu = ""  # the new-table form with a drop-down open
        self.waiting = ""
        self.decisions: list[Decision] = []
        self.point = ""  # her compass point this deal
        self.reading = ""
        self.header = ""
        self.after = ""  # the table once the reading is closed

    def has_turn(self, screen: str) -> bool:
        """Her seat's heading in the compass carries the turn marker."""
        return f"▶ {self.point}" in "\n".join(compass(screen))


def choose(player: Player, label: str, value: str, step: str = "\x1b[A") -> None:
    """Set the form's focused drop-down to ``value``: open it (its arrow turns ▲), one
    ``step`` (up, unless told), ⏎ (▼ again), until it shows ``value``. Keeps the screen with
    the menu open."""
    line = rf"(?m)^.*{re.escape(label)}\s+.*"
    for _try in range(4):
        if re.search(rf"{re.escape(label)}\s+{re.escape(value)}\s+▼", player.term.text()):
            return
        player.press("\r")
        player.menu = player.wait_for(line + "▲")
        player.press(step + "\r")
        player.wait_for(line + "▼")
        player.settle(0.2)
    raise AssertionError(f"could not choose {value} for {label}:\n{player.term.text()}")


def open_table(player: Player) -> None:
    """A Fortunes table of a single deal (stake 10, the form's default), three bots, start."""
    player.press("n")
    player.wait_for(UK("New table"))
    player.settle()
    choose(player, UK("Game"), UK("Fortunes"))
    player.wait_for(rf"{UK('Betting')}\s+{re.escape(UK('rubber of four deals'))}\s+▼")
    # To the Betting drop-down, one Tab a field (past the duplicate set); rubber first, deal next.
    player.press("\t" * 7)
    choose(player, UK("Betting"), SINGLE_MARKED, step="\x1b[B")
    player.form = player.wait_for(rf"{UK('Betting')}\s+{re.escape(SINGLE_MARKED)}\s+▼")
    player.press("\x13")  # ctrl+s: create
    player.wait_for(re.escape(UK("Table {id}").format(id=1)) + " · ")
    for n in (2, 3, 4):
        player.press("b")
        player.wait_for(rf"{BOTS[n - 2]}\b")
    player.waiting = player.settle()
    player.press("s")
    screen = player.wait_for(rf"│ \S+ {NAME}\s")
    row = next(r for r in won_box(screen).values() if r.name == NAME)
    player.point = POINTS[LETTERS.index(row.letter)]


def play_the_deal(player: Player, timeout: float = 30.0) -> None:
    """Until the reading: at her turn, ⏎ when the footer offers to play, else → to the next
    card (a dimmed card may not be played)."""
    play = "⏎ " + UK("Play")
    last: tuple[str, float] | None = None
    deadline = time.monotonic() + timeout
    while True:
        assert time.monotonic() < deadline, player.term.text()
        screen = player.drain()
        if is_reading(screen):
            # The chips come with the result (before the reading), as the header shows.
            player.header = screen.splitlines()[0]
            break
        footer = screen.splitlines()[-1]
        if footer.startswith(play):
            key = "\r"
        elif player.has_turn(screen):
            key = "\x1b[C"
        else:
            continue
        now = time.monotonic()
        if last and last[0] == screen and now - last[1] < 2.0:
            continue  # the last key has yet to show (a slow machine: not pressed twice)
        if key == "\r":
            decision = read_decision(screen)
            if not player.decisions or player.decisions[-1].trick != decision.trick:
                player.decisions.append(decision)
        player.press(key)
        last = (screen, now)
    # The notices of the last Stars fade within 4 s: read the reading without them.
    player.reading = player.term.wait_for(lambda t: is_reading(t) and "▌" not in t, 8.0)
    # Closed, it shows the table as the deal ended (the next deal waits: --between-games).
    # The table comes back as one big frame, which a loaded machine may hand the terminal in
    # pieces: wait for its prompt too (the game-over line), not just for the reading to go.
    player.press("\r")
    over = UK("The game is over: {names} takes the pot.").split("{")[0]
    player.after = player.term.wait_for(
        lambda t: not is_reading(t) and UK("Table") in t and over in t, 8.0
    )


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One whole deal, played once for the tests below: what Oksana's screen showed."""
    server = ServeProcess(
        tmp_path_factory.mktemp("serve"),
        "--bot-delay",
        "0.1",
        "--between-games",
        "60",
        seed=SEED,
    )
    player = Player(server)
    try:
        player.welcome = player.wait_for(UK("Enter the lobby"))
        enter_lobby(player, "Українська")
        open_table(player)
        play_the_deal(player)
        yield player
    finally:
        player.close()
        assert server.stop() == 0, server.log()
        assert "Traceback" not in server.log(), server.log()


# --- what the screen showed -------------------------------------------------------------------


def test_the_table_speaks_ukrainian(played):
    """From the welcome to the reading, in the words of the Ukrainian catalog."""
    # The catalog has these words in Ukrainian (a missing translation would show English).
    for msgid in ("East", "High", "HIGH", "well-disposed", "Fortunes", "single deal", "Play"):
        assert UK(msgid) != msgid, msgid
    assert UK("Language") in played.welcome and "Українська" in played.welcome
    assert re.search(rf"{UK('Game')}\s+{UK('Fortunes')}\s+▼", played.form)
    assert UK("Betting: {option}").format(option=UK("single deal")) in played.waiting
    assert f"{NAME}{UK(' (you)')}" in played.waiting
    # In the deal, the seats are named by compass point with their team (East and West
    # High, South and North Low); a heading with the turn marker may be cut short.
    first = played.decisions[0].screen
    box = "\n".join(compass(first))
    for index, point in enumerate(POINTS):
        team = UK("High") if index % 2 == 0 else UK("Low")
        cut = "|".join(re.escape(team[:n]) + "…" for n in range(1, len(team)))
        assert re.search(rf"{point} · (?:{team}\b|{cut})", box), (point, box)
    title = UK("Won tricks · {well} well-disposed · {ill} ill-disposed")
    assert title.format(well="✓", ill="✗") in first
    pot = UK("{option} · pot {pot}").format(option=UK("single deal"), pot=4 * STAKE)
    lead = "You lead trick {n}: {direction}. Play any card."
    follow = "Play to trick {n}: follow {suit} if you can."
    for decision in played.decisions:
        screen = decision.screen
        assert NAME in "\n".join(compass(screen))
        assert pot in "\n".join(status(screen))
        # The prompt asks in Ukrainian (its start: a notice may cover the end of the line).
        prompt = prompt_of(screen).strip()
        ask = lead if decision.led is None else follow
        assert re.match(start_of(UK(ask)), prompt), prompt
        # The hand's title counts in Ukrainian plurals (1 карта, 2 карти, 5 карт): she
        # holds one card fewer each trick.
        cards = TRICKS + 1 - decision.trick
        hand = UK.catalog.ngettext("Your hand: {n} card", "Your hand: {n} cards", cards)
        assert f"├─ {hand.format(n=cards)} ─" in screen, screen
        # The won tricks and the hand are one closed box, the hand's title on the line
        # between them (issue 38: over ssh, the hand's own box was drawn under the won
        # tricks, which had no bottom border), the suits' signs named under the hand.
        lines = screen.splitlines()
        top = next(i for i, line in enumerate(lines) if title.format(well="✓", ill="✗") in line)
        bottom = max(i for i, line in enumerate(lines) if line.startswith("╰"))
        box = lines[top : bottom + 1]
        for x, edge in ((0, "╭│+├│+╰"), (79, "╮│+┤│+╯")):  # (notices stop short of it)
            assert re.fullmatch(edge, "".join(line[x] for line in box)), screen
        if "▌" not in lines[bottom]:  # (unless a notice covers it)
            assert f"♣ {UK('Wands')} · ♥ {UK('Cups')}" in lines[bottom], screen
        assert screen.splitlines()[-1].startswith("⏎ " + UK("Play"))
        # Nothing on the table is left in English.
        assert not re.search(
            r"\b(HIGH|LOW|High|Low|East|South|West|North|Trick|Stars?|Deal|Your|wins|led)\b",
            screen,
        ), screen
    # The reading names the dispositions in full in its legend, and short in its lines.
    legend = f"✓ {UK('well-disposed')}  ✗ {UK('ill-disposed')}"
    assert legend in played.reading
    assert {t.word for t in reading_tricks(played.reading)} <= {UK("well"), UK("ill")}


def test_an_open_drop_down_speaks_ukrainian(played):
    footer = played.menu.splitlines()[-1]
    labels = [part.split(" ", 1)[1] for part in footer.split("  ") if " " in part.strip()]
    assert labels, played.menu
    assert not any(re.search("[A-Za-z]", label) for label in labels), footer


def test_the_direction_marker_follows_the_stars(played):
    """At each of her decisions, the trick goes the way its leader's team wants (a High lead
    high, a Low lead low, ruling 5), flipped once for every Star played into a trick led in
    a mundane suit; the compass and the deal box say the same."""
    decisions = played.decisions
    assert [d.trick for d in decisions] == list(range(1, TRICKS + 1))
    for d in decisions:
        leader = (d.trick - 1) % 4  # the lead passes clockwise from the dealer, East
        direction = "high" if leader % 2 == 0 else "low"
        flips = d.stars if d.led not in (None, STAR_SYMBOL) else 0
        if flips % 2:
            direction = other(direction)
        assert d.compass_direction == d.status_direction == direction, d.screen
        assert d.flipped == (flips or None), d.screen
        if d.led == STAR_SYMBOL:  # ruling 5: a Star lead cannot flip, and the box says so
            assert UK("Star lead: fixed") in status(d.screen)[0], d.screen
        if d.led is None:  # she leads: the prompt names the direction her lead sets
            assert POINTS[leader] == played.point
            prompt = prompt_of(d.screen)
            if "▌" not in prompt:  # unless a notice covers it
                assert f"{arrow(direction)} " in prompt, d.screen
    # In this deal a bot's Star has turned a trick around before she plays to it.
    turned = [d for d in decisions if d.flipped and d.flipped % 2]
    assert turned, f"seed {SEED} no longer flips a trick before Oksana's turn: pick another"
    for d in turned:
        leader = (d.trick - 1) % 4
        assert d.compass_direction != ("high" if leader % 2 == 0 else "low"), d.screen


def test_the_won_tricks_follow_the_reading(played):
    """Before each of her plays, the won-tricks box holds exactly the tricks the reading lists
    before that one: each seat's count, score and newest top cards with their marks."""
    tricks = reading_tricks(played.reading)
    for d in played.decisions:
        rows = won_box(d.screen)
        before = [t for t in tricks if t.n < d.trick]
        assert sum(row.tricks for row in rows.values()) == d.trick - 1
        for letter, row in rows.items():
            mine = [t for t in before if t.letter == letter]
            assert row.tricks == len(mine), (d.trick, row)
            assert row.score == sum(t.points for t in mine), (d.trick, row)
            expected = [(t.top, t.mark) for t in mine]
            assert row.shown == expected[len(expected) - len(row.shown) :], (d.trick, row)
            assert row.cut == (len(row.shown) < len(expected)), (d.trick, row)
            assert all(t.name == row.name for t in mine), (d.trick, row)
        # The deal box adds the team scores: East and West High, South and North Low.
        score = {point: rows[LETTERS[point]].score for point in range(4)}
        high, low = score[0] + score[2], score[1] + score[3]
        assert f"{UK('High')} {fmt(high)} · {UK('Low')} {fmt(low)}" in "\n".join(status(d.screen))


def test_the_reading_of_the_deal(played):
    """The reading lists all 19 tricks; each scores its top card's strength in the trick's
    final direction, plus when well-disposed, minus when ill-disposed (house rule, ruling 9);
    the higher team's higher scorer takes the pot (ruling 10, a single deal), and her chips
    follow."""
    screen = played.reading
    tricks = reading_tricks(screen)
    assert [t.n for t in tricks] == list(range(1, TRICKS + 1)), screen
    high_team = {LETTERS[0], LETTERS[2]}  # East and West
    for t in tricks:
        # well-disposed: the trick went the winner's team's way (High: high, Low: low)
        won_high = (t.letter in high_team) == (t.mark == "✓")
        value = strength(t.top, "high" if won_high else "low")
        assert t.points == (value if t.mark == "✓" else -value), t
        assert t.word == (UK("well") if t.mark == "✓" else UK("ill")), t
    # Who sits where (the won-tricks box names every seat), and each one's score.
    names = {row.letter: row.name for row in won_box(played.decisions[-1].screen).values()}
    assert all(names[t.letter] == t.name for t in tricks)
    scores = {letter: sum(t.points for t in tricks if t.letter == letter) for letter in LETTERS}
    east, south, west, north = LETTERS
    high, low = scores[east] + scores[west], scores[south] + scores[north]
    head = (
        UK("{name} deals (East).").format(name=names[east])
        + f" {UK('High')} {east}+{west} {fmt(high)}  {UK('Low')} {south}+{north} {fmt(low)}"
    )
    assert head in screen, screen
    players = " · ".join(f"{letter} {names[letter]} {fmt(scores[letter])}" for letter in LETTERS)
    assert players in screen, screen
    # Ruling 10 (a): the team with the higher score wins, and its higher scorer takes the
    # pot (both share it when equal); equal teams take back their antes.
    pot = 4 * STAKE
    if high == low:
        winners: list[str] = []
        assert UK("A draw: every player takes back what they put in.") in screen, screen
        over = UK("The game is over: a draw, every player takes back their ante.")
    else:
        team = (east, west) if high > low else (south, north)
        best = max(scores[letter] for letter in team)
        winners = [names[letter] for letter in team if scores[letter] == best]
        said = UK.catalog.ngettext(
            "{names} takes the pot of {pot} chips.",
            "{names} share the pot of {pot} chips.",
            len(winners),
        )
        found = UK.find(said.replace("{pot}", str(pot)), unboxed(screen))
        assert found and set(found["names"].split(", ")) == set(winners), screen
        over = UK.catalog.ngettext(
            "The game is over: {names} takes the pot.",
            "The game is over: {names} share the pot.",
            len(winners),
        ).format(names=found["names"])
    assert over in played.after, played.after
    won = 0 if not winners else (pot // len(winners) if NAME in winners else 0) - STAKE
    you = UK.catalog.ngettext("You: {chips} chip.", "You: {chips} chips.", abs(won))
    assert you.format(chips=fmt(won)) in screen, screen
    # The chips went where the reading says: the header shows her new balance.
    header = played.header
    chips = UK.line("{chips} chips", header.split(" · ")[1])
    assert chips and int(re.sub(r"\D", "", chips["chips"])) == START_CHIPS + won, header
