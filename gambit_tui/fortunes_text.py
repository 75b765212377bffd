"""Fortunes in words and faces: cards, compass seats, teams, the direction and dispositions.

The engine sends codes ("W14", "*7", "high", "well") and seat numbers; this module is the one
place that turns them into what a player reads, in their language and card style, so every
Fortunes widget tells the same story. What the rules make of a trick (which way it goes, how
often it flipped, whose card wins it so far, whom it favours) comes in the view's public part:
the app never works it out again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text

from protocol.cards import (
    FORTUNES_COURTS,
    FORTUNES_RANK_LABELS,
    FORTUNES_STAR,
    FORTUNES_SUITS,
    fortunes_value,
)

from .cards import CardStyle, DeckFaces, face_label, suit_colour
from .i18n import N_, _, ngettext
from .sentences import Face, Names, Said, fill

STAR = FORTUNES_STAR
#: Tarot's mundane suits and their French cousins: Wands ♣, Cups ♥, Swords ♠, Pentacles ♦.
SUIT_SYMBOLS = {"W": "♣", "C": "♥", "S": "♠", "P": "♦"}
STAR_SYMBOL = "★"
SUITS = "WCSP*"
#: The suits' and ranks' names in English (``protocol.cards`` holds them, and the catalog
#: tool extracts them from there), translated where they are shown.
SUIT_NAMES = {**FORTUNES_SUITS, STAR: N_("Stars")}
RANK_NAMES = {1: N_("Ace"), **FORTUNES_COURTS}
#: The "rank of Suit" pattern of each mundane suit, so languages can inflect the suit.
_OF_SUIT = {
    "W": N_("{rank} of Wands"),
    "C": N_("{rank} of Cups"),
    "S": N_("{rank} of Swords"),
    "P": N_("{rank} of Pentacles"),
}

#: Tricks in a deal: every card of a player's hand is played.
TRICKS = 19

#: Seats by their place from the dealer: East deals, then South, West and North clockwise.
COMPASS = (N_("East"), N_("South"), N_("West"), N_("North"))
COMPASS_SHORT = (N_("E"), N_("S"), N_("W"), N_("N"))
TEAMS = {"High": N_("High"), "Low": N_("Low")}

_TWO = {"W": "bold", "S": "bold", "C": "bold red", "P": "bold red"}
_FOUR = {
    "dark": {"S": "bold", "C": "bold red", "P": "bold cyan", "W": "bold green"},
    "light": {"S": "bold", "C": "bold red3", "P": "bold blue", "W": "bold green4"},
}
#: Stars in a colour of their own: the dark theme draws ANSI magenta as red, so blue (violet).
_STAR_STYLE = {"dark": "bold blue", "light": "bold magenta"}
_TEAM_STYLE = {
    "dark": {"High": "bold yellow", "Low": "bold cyan"},
    "light": {"High": "bold dark_orange3", "Low": "bold blue"},
}


# --- cards ---------------------------------------------------------------------------------


def suit_style(suit: str, style: CardStyle) -> str:
    """A suit's colour: Stars violet, the mundane suits black and red (or four colours, as the
    French deck's)."""
    if suit == STAR and style.theme != "mono":
        return _STAR_STYLE.get(style.theme, _STAR_STYLE["dark"])
    return suit_colour(suit, style, _TWO, _FOUR)


def card_label(code: str, style: CardStyle) -> str:
    """The plain face of a card: "Rh♣", "10♥", "★7"; "Rh♣W" with letters; "RhW", "*7" in
    ASCII."""
    n = fortunes_value(code)
    if code[0] == STAR:
        return f"{STAR if style.ascii else STAR_SYMBOL}{n}"
    return face_label(FORTUNES_RANK_LABELS.get(n, str(n)), code[0], SUIT_SYMBOLS, style)


def card_text(code: str | None, style: CardStyle, *, empty: str = "—") -> Text:
    """A card face in its suit colour; ``None`` shows ``empty``."""
    if code is None:
        return Text(empty, style="dim")
    return Text(card_label(code, style), style=suit_style(code[0], style))


def suit_text(suit: str, style: CardStyle) -> Text:
    """A suit's symbol (its letter in ASCII) and name: "♣ Wands"."""
    if suit == STAR:
        symbol = STAR if style.ascii else STAR_SYMBOL
    else:
        symbol = suit if style.ascii else SUIT_SYMBOLS[suit]
    out = Text()
    out.append(symbol, style=suit_style(suit, style))
    out.append(" " + suit_name(suit))
    return out


def suit_legend(style: CardStyle) -> Text:
    """What each mundane suit's sign stands for, "♣ Wands · ♥ Cups · ♠ Swords · ♦ Pentacles"
    ("W Wands" … in ASCII): the faces borrow the French deck's signs, which a player
    cannot know stand for tarot's suits (issue 38: "9♣ 9 of Wands")."""
    return Text(" · ").join(suit_text(suit, style) for suit in FORTUNES_SUITS)


def suit_name(suit: str) -> str:
    return _(SUIT_NAMES.get(suit, suit))


def card_name(code: str) -> str:
    """A card in words: "Righ of Wands", "7 of Cups", "Star 7"."""
    n = fortunes_value(code)
    if code[0] == STAR:
        return _("Star {n}").format(n=n)
    rank = _(RANK_NAMES[n]) if n in RANK_NAMES else str(n)
    return _(_OF_SUIT[code[0]]).format(rank=rank)


def _rank(code: str) -> int:
    """Strength for sorting: the value; Stars after every mundane card (they are no rank of
    the mundane suits, and a hand reads better with them together at the end)."""
    return fortunes_value(code) + (100 if code[0] == STAR else 0)


#: The Fortunes deck for the shared hand row and trick view.
FORTUNES_FACES = DeckFaces(
    text=lambda code, style: card_text(code, style),
    suit=lambda code: code[0],
    rank=_rank,
    suits=SUITS,
)


# --- seats and teams -----------------------------------------------------------------------


def compass_index(seat: int, dealer: int) -> int:
    return (seat - dealer) % 4


def compass_name(seat: int, dealer: int) -> str:
    """The compass point of ``seat``: East for the dealer, then South, West, North."""
    return _(COMPASS[compass_index(seat, dealer)])


def compass_letter(seat: int, dealer: int) -> str:
    return _(COMPASS_SHORT[compass_index(seat, dealer)])


def team_at(view: dict[str, Any], seat: int) -> str:
    """The team of ``seat`` as the view says: "High" (East, West: the dealer's) or "Low"."""
    seats = view.get("seats") or []
    return str(seats[seat]["team"]) if seat < len(seats) else "High"


def team_label(team: str) -> str:
    return _(TEAMS.get(team, team))


def team_style(team: str, style: CardStyle) -> str:
    if style.theme == "mono":
        return "bold"
    return _TEAM_STYLE.get(style.theme, _TEAM_STYLE["dark"])[team]


def team_text(team: str, style: CardStyle) -> Text:
    """A team's name in its colour."""
    return Text(team_label(team), style=team_style(team, style))


# --- the direction and dispositions --------------------------------------------------------


def arrow(direction: str, style: CardStyle) -> str:
    if direction == "high":
        return "^" if style.ascii else "▲"
    return "v" if style.ascii else "▼"


def direction_text(
    direction: str, style: CardStyle, *, favours: bool | None = None, short: bool = False
) -> Text:
    """The direction marker, "▲ HIGH wins" or "▼ LOW wins" ("▲ HIGH" short): green when it
    favours the player's team, red when it favours the other (the colour only repeats what
    the words say)."""
    if short:
        words = _("HIGH") if direction == "high" else _("LOW")
    else:
        words = _("HIGH wins") if direction == "high" else _("LOW wins")
    colour = "bold"
    if style.theme != "mono" and favours is not None:
        colour = "bold green" if favours else "bold red"
    out = Text()
    out.append(f"{arrow(direction, style)} {words}", style=colour)
    return out


def favours(view: dict[str, Any], seat: int | None) -> bool | None:
    """Whether the trick's direction favours ``seat``'s team, as the view's public part says
    (None for a spectator, or a trick that favours no one)."""
    trick = view.get("trick") or {}
    if seat is None or not trick.get("favours"):
        return None
    return trick["favours"] == team_at(view, seat)


def disposition_mark(disposition: str, style: CardStyle) -> Text:
    """✓ for a well-disposed trick, ✗ for an ill-disposed one (+ and - in ASCII)."""
    well = disposition == "well"
    marks = ("+", "-") if style.ascii else ("✓", "✗")
    mark = marks[0] if well else marks[1]
    colour = "bold" if style.theme == "mono" else ("bold green" if well else "bold red")
    return Text(mark, style=colour)


def disposition_word(disposition: str) -> str:
    return _("well-disposed") if disposition == "well" else _("ill-disposed")


def disposition_short(disposition: str) -> str:
    """The disposition in one short word, where a column is narrow (a legend spells it out)."""
    return _("well") if disposition == "well" else _("ill")


# --- what just happened --------------------------------------------------------------------


def notices(
    events: list[dict[str, Any]],
    start: int,
    names: Names,
    style: CardStyle,
    *,
    mine: int | None = None,
) -> list[str]:
    """Sentences worth a notice for the events from ``start`` on: a Star flipping a trick
    (its play event says the new direction), Stars becoming free, a raise or a fold. The
    deal's earlier events number the tricks. The player's own raise or fold (seat ``mine``)
    needs no notice."""
    out: list[str] = []
    trick_no = 1
    for index, ev in enumerate(events):
        kind = ev.get("e")
        new = index >= start
        if kind == "play" and new:
            if ev.get("flip"):
                out.append(
                    _("{name} plays {card}: trick {n} flips to {direction}.").format(
                        name=names(ev["seat"]),
                        card=card_label(ev["card"], style),
                        n=trick_no,
                        direction=direction_text(ev["flip"], style).plain,
                    )
                )
            if ev.get("stars_free"):
                out.append(_("Stars are free: anyone may play a Star at any time now."))
        elif kind == "trick":
            trick_no = ev["n"] + 1
        elif kind == "raise" and new and ev["seat"] != mine:
            out.append(_("{name} raises.").format(name=names(ev["seat"])))
        elif kind == "fold" and new and ev["seat"] != mine:
            out.append(_("{name} folds: the deal ends.").format(name=names(ev["seat"])))
    return out


# --- the event log, in words (the plain mode says it) ------------------------------------


def _said_direction(direction: str) -> str:
    """The direction in words alone (no arrow: a screen reader says "caret")."""
    return _("HIGH wins") if direction == "high" else _("LOW wins")


def _play_line(s: Said) -> Text:
    ev = s.ev
    if ev.get("flip"):
        out = fill(
            _("{name} plays {card}: the trick flips to {direction}."),
            name=s.who,
            card=s.card(),
            direction=_said_direction(ev["flip"]),
        )
    else:
        out = fill(_("{name} plays {card}."), name=s.who, card=s.card())
    if ev.get("stars_free"):
        out.append(" " + _("Stars are free: anyone may play a Star at any time now."))
    return out


def _trick_line(s: Said) -> Text:
    ev = s.ev
    return fill(
        ngettext(
            "{name} wins trick {n} with {card}, {disposition}: {points} point.",
            "{name} wins trick {n} with {card}, {disposition}: {points} points.",
            int(ev.get("points", 0)),
        ),
        name=s.name("winner"),
        n=ev["n"],
        card=s.card("top"),
        disposition=disposition_word(ev.get("disposition", "well")),
        points=ev.get("points", 0),
    )


def _deal_end_line(s: Said) -> Text:
    scores = ", ".join(f"{s.names(seat)} {n}" for seat, n in enumerate(s.ev.get("scores", [])))
    return Text(
        _("Deal {n} is over. Points: {scores}.").format(n=s.ev.get("deal", 1), scores=scores)
    )


#: Each kind of Fortunes event and its sentence; an event not here is not worth a line.
_LINES: dict[str, Callable[[Said], Text]] = {
    "deal": lambda s: Text(_("{name} deals (East).").format(name=s.name("dealer"))),
    "bid": lambda s: Text(_("{name} bids {n}.").format(name=s.who, n=s.ev["tricks"])),
    "stay": lambda s: Text(_("{name} stays.").format(name=s.who)),
    "raise": lambda s: Text(_("{name} raises.").format(name=s.who)),
    "fold": lambda s: Text(_("{name} folds: the deal ends.").format(name=s.who)),
    "play": _play_line,
    "trick": _trick_line,
    "deal_end": _deal_end_line,
}


def event_text(
    ev: dict[str, Any], names: Names, style: CardStyle, face: Face = card_text
) -> Text | None:
    """One event as a sentence, or None for an event not worth one (``face``: how a card is
    shown; the plain mode says its name)."""
    kind: Any = ev.get("e")  # (the hub's: any kind, known or not)
    line = _LINES.get(kind)
    return line(Said(ev, names, style, face)) if line is not None else None


# --- the question of a decision ----------------------------------------------------------


def _play_question(
    ask: dict[str, Any], view: dict[str, Any], style: CardStyle, spoken: bool = False
) -> Text:
    trick = view.get("trick") or {}
    n = trick.get("n", ask.get("trick", 1))
    led = trick.get("led")
    if not led:
        return fill(
            _("You lead trick {n}: {direction}. Play any card."),
            n=str(n),
            direction=(
                _said_direction(trick.get("direction", "high"))
                if spoken
                else direction_text(trick.get("direction", "high"), style)
            ),
        )
    out = fill(
        _("Play to trick {n}: follow {suit} if you can."),
        n=str(n),
        suit=suit_name(led) if spoken else suit_text(led, style),
    )
    if view.get("stars_free") and led != STAR:
        out.append(" " + _("Stars may be played."))
    return out


Question = Callable[[dict[str, Any], dict[str, Any], CardStyle], Text]

#: Each kind of decision and the question it asks, given the ask, the view and the card style.
_ASKS: dict[str, Question] = {
    "play": _play_question,
    "bid": lambda ask, view, style: Text(
        _("Bid the tricks you will win (0–{n}); your team's bid is the sum.").format(
            n=ask.get("max", TRICKS)
        )
    ),
    "bet": lambda ask, view, style: Text(
        _("Before trick {n}: stay, raise the ante, or fold (ends the deal).").format(
            n=ask.get("trick", (view.get("trick") or {}).get("n", 1))
        )
    ),
    "next_deal": lambda ask, view, style: Text(
        _("Deal {n} is over: press Enter when you are ready for deal {m}.").format(
            n=view.get("deal", 1), m=ask.get("deal", view.get("deal", 1) + 1)
        )
    ),
}


def ask_text(
    ask: dict[str, Any], view: dict[str, Any], style: CardStyle, *, spoken: bool = False
) -> Text:
    """The question of the player's pending decision, in words (``spoken``: suits and the
    direction in words alone, no signs, for the plain mode)."""
    kind: Any = ask.get("kind")  # (the hub's: any kind, known or not)
    if kind == "play":
        return _play_question(ask, view, style, spoken)
    if kind == "next_deal" and spoken:  # (the deal's end was said just before)
        return Text(_("Ready for deal {n}?").format(n=ask.get("deal", view.get("deal", 1) + 1)))
    question = _ASKS.get(kind)
    return question(ask, view, style) if question is not None else Text(kind or "")
