"""The result of a deal as text: every hand and Fate, its category, the winner and the pot.

Drawn line by line (``grid_text``), not with Rich tables: at the end of a deal every player at
the table is shown it at once, and a Rich table was measured and rendered again for each
layout (about 100 ms of the server's time per player).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

from .cards import CardStyle, card_text, cards_text
from .i18n import _, ngettext
from .names import category_name, seat_name
from .widgets.grid import grid_text


def result_title(message: dict[str, Any]) -> str:
    """The dialog's title: "The Reveal" is Prophet's Gambit's own word for the end of a deal."""
    game = (message.get("info") or {}).get("game")
    return _("The Reveal") if game == "prophets_gambit" else _("Result")


def result_text(message: dict[str, Any], style: CardStyle) -> Text:
    """The body of the result: for Prophet's Gambit every hand, Fate and category, the
    winners and the pot; for other games places, scores and chips."""
    view = message.get("view") or {}
    outcome = view.get("outcome")
    if not outcome:
        return Text(_("The deal is over."))
    info = message["info"]
    if info.get("game") != "prophets_gambit" or not outcome.get("hands"):
        return _scores_text(message, outcome)
    detail = outcome.get("detail") or {}
    stake = info.get("stake", 0)
    paid = payouts(outcome, stake)
    head = Text()
    focus = detail.get("focus")
    head.append(_("Focus") + " ")
    focus_text = card_text(focus, style)
    if detail.get("killed"):
        focus_text.stylize("strike")
        head.append_text(focus_text)
        head.append(" " + _("(killed: hands of four cards)"), style="dim")
    else:
        head.append_text(focus_text)
    if detail.get("donjon"):
        head.append(" · " + _("Donjon"), style="dim")
    rows: list[list[Text | str]] = [
        [_header(h) for h in ("#", _("Player"), _("Hand"), _("Fate"), _("Best hand"))]
    ]
    won: list[int] = []
    seats = info["seats"]
    for place, seat in enumerate(outcome.get("ranking", [])):
        hand = (outcome.get("hands") or [])[seat] or {}
        best = Text(category_name(hand.get("category", "")))
        best.append(" ")
        best.append_text(cards_text(hand.get("cards", []), style))
        rows.append(
            [
                str(place + 1),
                _player(message, outcome, seat),
                cards_text(hand.get("hand", []), style),
                card_text(hand.get("fate"), style),
                best,
            ]
        )
        won.append(paid[seat] - stake)
    _add_chips_column(rows, won)
    winners = [seat_name(seats[s]) for s in outcome.get("winners", [])]
    pot = sum(paid)
    summary = Text(
        ngettext(
            "{names} wins the pot of {pot} chip.",
            "{names} wins the pot of {pot} chips.",
            pot,
        ).format(names=", ".join(winners), pot=pot),
        style="bold",
    )
    return Text("\n", end="").join(
        [head, _table(rows), summary, *_rating_line(message, outcome), *duplicate_lines(message)]
    )


def _scores_text(message: dict[str, Any], outcome: dict[str, Any]) -> Text:
    """Any other game's result: places, scores and chips won or lost."""
    info = message["info"]
    stake = info.get("stake", 0)
    paid = payouts(outcome, stake)
    contrib = outcome.get("contributions") or [1] * len(paid)
    rows: list[list[Text | str]] = [[_header("#"), _header(_("Player"))]]
    scores: list[str] = []
    won: list[int] = []
    for place, seat in enumerate(outcome.get("ranking", [])):
        rows.append([str(place + 1), _player(message, outcome, seat)])
        scores.append(str(outcome["scores"][seat]))
        won.append(paid[seat] - contrib[seat] * stake)
    _add_right_column(rows, _("Score"), scores)
    _add_chips_column(rows, won, bold_gains=False)
    return Text("\n", end="").join(
        [_table(rows), *_rating_line(message, outcome), *duplicate_lines(message)]
    )


def _rating_line(message: dict[str, Any], outcome: dict[str, Any]) -> list[Text]:
    """The player's own place and how it moved their rating ("Place 2 of 4: rating +6"),
    as the hub rated it; nothing for a spectator or before the hub has said."""
    seat = message.get("seat")
    changes = (message.get("info") or {}).get("rating_changes") or []
    ranking = outcome.get("ranking") or []
    if seat is None or seat >= len(changes) or changes[seat] is None or seat not in ranking:
        return []
    change = changes[seat]
    place = ranking.index(seat) + 1
    firsts = (message.get("info") or {}).get("first_ratings") or []
    first = firsts[seat] if seat < len(firsts) else None
    if first is not None:  # a first rated game: the rating it gave, not a fall from 1000
        return [
            Text(
                _("Place {place} of {players}: your first rating, {rating}").format(
                    place=place, players=len(ranking), rating=first
                )
            )
        ]
    line = Text(
        _("Place {place} of {players}: rating {change}").format(
            place=place, players=len(ranking), change=f"{change:+d}"
        ),
        style="bold" if change > 0 else "",
    )
    return [line]


def duplicate_lines(message: dict[str, Any]) -> list[Text]:
    """At a table of a duplicate set: how the others who held the player's cards in this game
    did at the set's other tables (their place, score, chips), and how the player compares."""
    dup = (message.get("info") or {}).get("duplicate")
    if not dup:
        return []
    head = _("Duplicate set {name}, game {game}").format(name=dup["set"], game=dup["game"])
    seat = message.get("seat")
    others = dup.get("others") or []
    if seat is None or seat >= len(others):
        return [Text(head, style="dim")]
    mine = others[seat]
    if not mine:
        return [Text(head, style="bold"), Text(_("No other table has finished it yet."))]
    outcome = (message.get("view") or {}).get("outcome") or {}
    ranking = outcome.get("ranking") or []
    lines = [Text(head, style="bold")]
    for row in mine:
        name = seat_name({**row, "seat": seat})[:NAME_WIDTH]
        lines.append(
            Text(
                "  "
                + _("Table {table}, {name}: place {place}, score {score}, chips {chips}").format(
                    table=row["table"],
                    name=name,
                    place=row["place"],
                    score=row["score"],
                    chips=f"{row['chips']:+d}",
                )
            )
        )
    if seat in ranking:
        place = ranking.index(seat) + 1
        better = sum(1 for row in mine if row["place"] is not None and place < row["place"])
        lines.append(
            Text(
                ngettext(
                    "With your cards you placed better than {better} of {n} other player.",
                    "With your cards you placed better than {better} of {n} other players.",
                    len(mine),
                ).format(better=better, n=len(mine)),
                style="bold" if better else "",
            )
        )
    return lines


def _player(message: dict[str, Any], outcome: dict[str, Any], seat: int) -> Text:
    name = Text(seat_name(message["info"]["seats"][seat]))
    if seat in outcome.get("winners", []):
        name.stylize("bold")
    if seat == message.get("seat"):
        name.append(" " + _("(you)"), style="dim")
    return name


def payouts(outcome: dict[str, Any], stake: int) -> list[int]:
    """Chips each seat takes from the pot (the hub's rule: winners share, remainder to the
    first listed), computed from the outcome so the result needs no extra message."""
    n = len(outcome.get("scores", []))
    contrib = outcome.get("contributions") or [1] * n
    if outcome.get("refund"):
        return [c * stake for c in contrib]
    pot = sum(contrib) * stake
    winners = outcome.get("winners") or []
    out = [0] * n
    if not winners:
        return out
    share, rest = divmod(pot, len(winners))
    for i, seat in enumerate(winners):
        out[seat] = share + (1 if i < rest else 0)
    return out


#: A player's name (with "(you)") in the result is cut to this many cells.
NAME_WIDTH = 14


def _header(text: str) -> Text:
    return Text(text, style="bold")


def _add_right_column(rows: list[list[Text | str]], title: str, cells: list[str]) -> None:
    """A right-aligned column (numbers): ``title`` above ``cells``, one per row below it."""
    width = max([len(title), *(len(c) for c in cells)])
    rows[0].append(_header(title.rjust(width)))
    for row, cell in zip(rows[1:], cells, strict=True):
        row.append(cell.rjust(width))


def _add_chips_column(
    rows: list[list[Text | str]], won: list[int], *, bold_gains: bool = True
) -> None:
    """Chips won (+) or lost (-) by each row's player, right-aligned."""
    _add_right_column(rows, _("Chips"), [f"{n:+d}" for n in won])
    for row, n in zip(rows[1:], won, strict=True):
        if bold_gains:
            row[-1] = Text(str(row[-1]), style="bold" if n > 0 else "dim")


def _table(rows: list[list[Text | str]]) -> Text:
    """Rows in columns two cells apart, names cut to fit."""
    widths: list[int | None] = [None, NAME_WIDTH]
    return grid_text(rows, gap=2, max_widths=widths)


def stand_in_text(games: int, chips: int) -> str:
    """What a stand-in bot did with the player's chips while they were away (the hub's
    ``stand_in``): told when they sit down again, so a loss is never a surprise found later."""
    played = ngettext(
        "While you were away a bot played {games} game in your seat with your chips:",
        "While you were away a bot played {games} games in your seat with your chips:",
        games,
    ).format(games=games)
    if chips > 0:
        result = ngettext("it won {n} chip.", "it won {n} chips.", chips).format(n=chips)
    elif chips < 0:
        result = ngettext("it lost {n} chip.", "it lost {n} chips.", -chips).format(n=-chips)
    else:
        result = _("it neither won nor lost chips.")
    return f"{played} {result}"


def stand_in_move_text(event: dict[str, Any], name: str) -> str:
    """The log's line before a move a bot made in a player's seat (the hub's ``stand_in``
    event): the move that follows is not the player's own."""
    if event.get("why") == "time":
        return _("Time ran out for {name}: a bot makes this move.").format(name=name)
    return _("{name} is away: a bot makes this move.").format(name=name)
