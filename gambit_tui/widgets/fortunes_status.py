"""The state of a Fortunes deal in a few lines: which way the trick goes, the led suit, whether
Stars are free, the team scores and the betting option's state (pot, ante, raises, bids,
running totals)."""

from __future__ import annotations

from typing import Any

from rich.text import Text

from ..fortunes_text import (
    STAR,
    STAR_SYMBOL,
    TRICKS,
    compass_letter,
    compass_name,
    direction_text,
    favours,
    suit_text,
    team_text,
)
from ..i18n import _
from ..names import choice_label
from .seats_panel import TablePanel

#: The deals of a rubber (ruling 10 a).
RUBBER_DEALS = 4
#: The betting options whose game is several deals, with running partnership totals.
MULTI_DEAL = ("rubber", "target", "target_exact")

#: Which of the shown figures are house rules, per betting option (RULINGS.md, Fortunes 9–10).
HOUSE_RULES = {
    "rubber": (),
    "ante": (),
    "raise": ("max_raises",),
    "bid": ("bids",),
    "target": ("target", "max_deals"),
    "target_exact": ("target", "max_deals"),
}


def signed(n: int) -> str:
    """A score with its sign: "+14", "−3", "0" (a real minus sign, as the rules page)."""
    return f"+{n}" if n > 0 else (f"−{-n}" if n < 0 else "0")


class FortunesStatus(TablePanel):
    """Everything about the deal that is not a seat or a card in hand. The direction line is
    the one to watch: it flips with every Star played into a mundane trick."""

    #: The last line (which figures are house rules) may take two.
    WRAP = True

    def on_mount(self) -> None:
        self.border_title = _("Deal")

    def build(self) -> Text:
        message = self.message
        if not message:
            return Text("")
        info = message["info"]
        view = message.get("view")
        lines: list[Text] = []
        if not view:
            options = info.get("options") or {}
            lines.append(Text(_("Stake {n}").format(n=info.get("stake", 0))))
            lines.append(
                Text(
                    _("Betting: {option}").format(
                        option=choice_label(options.get("betting", "rubber"))
                    )
                )
            )
            lines.append(Text(_("Scores: house rule"), style="dim"))
            return Text("\n").join(lines)
        lines.append(self._direction(message, view))
        lines.append(self._trick(view))
        lines.append(self._stars(view))
        lines.append(self._scores(view))
        lines.extend(self._betting(info, view))
        width = max(1, self.content_size.width)
        out = []
        for line in lines:
            line = line.copy()
            line.truncate(width, overflow="ellipsis")
            out.append(line)
        out.append(self._house_rules(view))
        return Text("\n").join(out)

    # --- lines -----------------------------------------------------------------------------

    def _direction(self, message: dict[str, Any], view: dict[str, Any]) -> Text:
        """The direction, "▲ HIGH wins · flipped ×1", coloured by whom it favours."""
        phase = view.get("phase")
        if view.get("over") or phase == "next_deal":
            return Text(_("Deal {n} is over.").format(n=view.get("deal", 1)), style="bold")
        trick = view.get("trick") or {}
        direction = trick.get("direction", "high")
        out = direction_text(direction, self.style, favours=favours(view, message.get("seat")))
        n = int(trick.get("flips") or 0)
        if n:
            out.append(" · ")
            out.append(_("flipped ×{n}").format(n=n), style="bold")
        elif trick.get("star_led"):
            out.append(" · ")
            out.append(_("Star lead: fixed"), style="dim")
        return out

    def _trick(self, view: dict[str, Any]) -> Text:
        """The trick, "Trick 5/19 · led ♦ Pentacles", or who leads while nothing is played."""
        trick = view.get("trick") or {}
        dealer = view.get("dealer", 0)
        out = Text(_("Trick {n}/{total}").format(n=trick.get("n", 1), total=TRICKS))
        if view.get("phase") not in ("play", "bet"):
            return out
        out.append(" · ")
        if trick.get("led"):
            out.append(_("led") + " ")
            out.append_text(suit_text(trick["led"], self.style))
        else:
            leader = trick.get("leader", dealer)
            out.append(_("{point} leads").format(point=compass_name(leader, dealer)))
        return out

    def _stars(self, view: dict[str, Any]) -> Text:
        symbol = STAR if self.style.ascii else STAR_SYMBOL
        if view.get("stars_free"):
            return Text(symbol + " " + _("Stars are free"), style="bold")
        return Text(symbol + " " + _("Stars not free yet"), style="dim")

    def _scores(self, view: dict[str, Any]) -> Text:
        """The team scores, "High +22 · Low −5" (the scoring is a house rule, said below)."""
        teams = view.get("teams") or {}
        out = Text()
        for name in ("High", "Low"):
            if out:
                out.append(" · ")
            out.append_text(team_text(name, self.style))
            out.append(" " + signed(int((teams.get(name) or {}).get("score", 0))), style="bold")
        return out

    def _betting(self, info: dict[str, Any], view: dict[str, Any]) -> list[Text]:
        """Two lines on the betting option: the pot and what the option keeps track of."""
        options = view.get("options") or {}
        betting = options.get("betting", "rubber")
        stake = int(info.get("stake", 0))
        dealer = view.get("dealer", 0)
        title = choice_label(betting)
        if betting == "raise":
            contributions = view.get("contributions") or [1, 1, 1, 1]
            raises = view.get("raises") or [0, 0, 0, 0]
            most = options.get("max_raises", 3)
            first = Text(
                _("{option} · pot {pot}").format(option=title, pot=stake * sum(contributions))
            )
            second = Text(
                _("Ante {chips} · raises {n} of {most}").format(
                    chips=stake * int(view.get("ante", 1)), n=sum(raises), most=most
                )
            )
            return [first, second]
        if betting == "bid":
            bids = view.get("bids") or [None] * 4
            seats = view.get("seats") or []
            first = Text(_("Bids") + " ")
            second = Text(_("Tricks") + " ")
            for team in ("High", "Low"):
                members = (view.get("teams") or {}).get(team, {}).get("seats", [])
                wanted = [bids[s] for s in members]
                total = "?" if None in wanted else str(sum(b for b in wanted if b is not None))
                won = sum(int(seats[s]["tricks"]) for s in members if s < len(seats))
                if team == "Low":
                    first.append(" · ")
                    second.append(" · ")
                first.append_text(team_text(team, self.style))
                first.append(f" {total}")
                second.append_text(team_text(team, self.style))
                second.append(f" {won}")
            return [first, second]
        if betting in MULTI_DEAL:
            if betting == "rubber":
                pot = stake * len(view.get("seats") or [0, 0, 0, 0])
                first = Text(
                    _("{option} · deal {n}/{most} · pot {pot}").format(
                        option=_("rubber"), n=view.get("deal", 1), most=RUBBER_DEALS, pot=pot
                    )
                )
            else:
                target = options.get("target", 100)
                key = _("exact target {n}") if betting == "target_exact" else _("target {n}")
                first = Text(
                    _("{target} · deal {n}/{most}").format(
                        target=key.format(n=target),
                        n=view.get("deal", 1),
                        most=options.get("max_deals", 10),
                    )
                )
            second = Text()
            for pair in view.get("partnerships") or []:
                if second:
                    second.append(" · ")
                letters = "·".join(compass_letter(s, dealer) for s in pair["seats"])
                second.append(f"{letters} {signed(int(pair['total']))}", style="bold")
            return [first, second]
        pot = stake * len(view.get("seats") or [0, 0, 0, 0])
        return [Text(_("{option} · pot {pot}").format(option=title, pot=pot)), Text("")]

    def _house_rules(self, view: dict[str, Any]) -> Text:
        """Which figures above are house rules (our reconstruction, RULINGS.md): always the
        trick scoring, and the betting option's own."""
        betting = (view.get("options") or {}).get("betting", "rubber")
        names = {
            "max_raises": _("most raises"),
            "bids": _("bids per player"),
            "target": _("target"),
            "max_deals": _("most deals"),
        }
        parts = [_("scoring")] + [names[k] for k in HOUSE_RULES.get(betting, ())]
        return Text(_("House rules: {rules}").format(rules=", ".join(parts)), style="dim italic")
