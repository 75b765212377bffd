"""Check a finished game's deal from its record alone: commitment, seed, cards dealt, moves.

Every check is recomputed from the revealed seed with the engine's own (pure) code, so it
needs no trust in the server that recorded the game beyond the commitment it published
before the deal (``docs/fair-deals.md``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from server.engine import RulesError, fairness

from .record import plain

PASS, FAIL, NOT_FAIR, UNVERIFIABLE = "pass", "fail", "not fair", "unverifiable"
#: The command's exit status for each verdict: only a pass is 0.
EXIT_CODES = {PASS: 0, FAIL: 1, NOT_FAIR: 3, UNVERIFIABLE: 4}


@dataclass
class Report:
    """What was checked, in order: ``(ok, sentence)`` per check, and the verdict."""

    checks: list[tuple[bool, str]] = field(default_factory=list)
    verdict: str = PASS
    #: Each check's subject as a word (``commitment``, ``seed``, ``moves``, ``deals``,
    #: ``result``, ``fair``, ``record``), with the checks, for an app to say in its language.
    codes: list[str] = field(default_factory=list)

    def ok(self, text: str, code: str = "record") -> None:
        self.checks.append((True, text))
        self.codes.append(code)

    def fail(self, text: str, code: str = "record") -> None:
        self.checks.append((False, text))
        self.codes.append(code)
        self.verdict = FAIL

    def summary(self) -> dict[str, Any]:
        """The verdict and each check as ``[code, ok]``, with the first failure's words."""
        failed = next((text for good, text in self.checks if not good), "")
        return {
            "verdict": self.verdict,
            "checks": [
                [code, good] for code, (good, _) in zip(self.codes, self.checks, strict=True)
            ],
            "detail": failed,
        }

    def lines(self) -> list[str]:
        """The report as a person reads it: each check, then the verdict."""
        out = [("ok    " if good else "FAILED ") + text for good, text in self.checks]
        out.append(
            {
                PASS: "PASS: this deal was fair and the game was played with the cards it dealt.",
                FAIL: "FAIL: this record does not match its deal (see above).",
                NOT_FAIR: "NOT FAIR: the record is consistent, but its deal was not random.",
                UNVERIFIABLE: "CANNOT VERIFY: this game was recorded without a commitment.",
            }[self.verdict]
        )
        return out


def _short(cards: list[Any]) -> str:
    return " ".join(map(str, cards)) if cards else "nothing"


def _first_difference(recorded: Any, computed: Any) -> str:
    """Where two deals' card places first differ, in words."""
    if not isinstance(recorded, dict):
        return "the recorded deal is malformed"
    for place in sorted(set(recorded) | set(computed)):
        have, want = recorded.get(place), computed.get(place)
        if have != want:
            return (
                f"{place}: the record has {_short(have or [])}, the seed deals {_short(want or [])}"
            )
    return "they differ"


def _check_players(report: Report, deal: dict[str, Any]) -> None:
    """Players' values (record version 2): each matches the commitment its app sent before
    any value was revealed; who committed but gave no value is said, not failed."""
    contributions = deal.get("contributions") or []
    commits = deal.get("commits") or []
    if not contributions and not commits:
        return
    try:
        committed = {int(seat): str(digest) for seat, digest in commits}
        given = [(int(seat), str(value)) for seat, value in contributions]
    except (TypeError, ValueError):
        report.fail("The players' commitments in the record are malformed.", "players")
        return
    for seat, value in given:
        if seat not in committed:
            report.fail(
                f"Seat {seat}'s value has no commitment: it was not committed first.",
                "players",
            )
            return
        if fairness.commitment(value) != committed[seat]:
            report.fail(
                f"Seat {seat}'s value does not match the commitment its app sent: SHA-256 of "
                f"the value is {fairness.commitment(value)}, the commitment was {committed[seat]}.",
                "players",
            )
            return
    report.ok(
        f"{len(given)} player(s)' values match the commitments their apps sent before any was "
        "revealed.",
        "players",
    )
    missing = sorted(set(committed) - {seat for seat, _ in given})
    left_out = sorted(set(int(s) for s in deal.get("left_out") or []) | set(missing))
    if left_out:
        seats = ", ".join(map(str, left_out))
        report.ok(
            f"Left out of the seed (no value revealed in time): seat {seats}; the deal went on "
            "without them.",
            "players",
        )


def verify(record: dict[str, Any]) -> Report:
    """Check a record (``server.records.record``); never raises on a damaged one."""
    report = Report()
    deal = record.get("deal")
    params = record["params"]
    if not isinstance(deal, dict):
        report.fail("The record has no deal commitment: it was made before verifiable deals.")
        report.verdict = UNVERIFIABLE
        return report
    hub_seed = str(deal.get("hub_seed", ""))
    committed = str(deal.get("commitment", ""))
    if deal.get("algorithm") != fairness.ALGORITHM:
        report.fail(
            f"The deal names algorithm {deal.get('algorithm')!r}; this Gambit knows "
            f"{fairness.ALGORITHM!r}."
        )
        return report
    actual = fairness.commitment(hub_seed)
    if actual == committed:
        report.ok(
            f"The revealed seed hashes to the commitment published before the deal "
            f"({actual[:16]}…).",
            "commitment",
        )
    else:
        report.fail(
            f"The revealed seed does not match the commitment: SHA-256 of the seed is "
            f"{actual}, but the commitment shown before the deal was {committed}.",
            "commitment",
        )
    try:
        seed = fairness.mix(hub_seed, deal.get("contributions") or [])
    except (TypeError, ValueError):
        report.fail("The players' contributions in the record are malformed.")
        return report
    _check_players(report, deal)
    if str(params.get("seed")) == seed:
        who = "the server's seed" if not deal.get("contributions") else "the mixed seeds"
        report.ok(f"The game was dealt from {who}.", "seed")
    else:
        report.fail(
            "The game's seed is not the one the commitment (and any players' values) give.",
            "seed",
        )
    # Deal with the seed the commitment gives, whatever the record's params claim.
    try:
        state, dealt, failed, reason = fairness.replay_deals(
            {**params, "seed": seed}, record["actions"]
        )
    except RulesError as err:
        report.fail(f"The game cannot be set up from the record: {err}")
        return report
    recorded = plain(deal.get("dealt") or [])
    computed = plain(dealt)
    if failed is not None:
        step = record["actions"][failed]
        report.fail(
            f"Move {failed + 1} ({step!r}) is impossible with the cards this seed deals: {reason}",
            "moves",
        )
    else:
        report.ok(
            f"All {len(record['actions'])} moves are possible with the cards this seed deals.",
            "moves",
        )
    for number, (have, want) in enumerate(zip(recorded, computed, strict=False), start=1):
        if have != want:
            report.fail(
                f"Deal {number} differs from the seed's: {_first_difference(have, want)}.", "deals"
            )
            break
    else:
        if failed is None and len(recorded) != len(computed):
            report.fail(
                f"The record lists {len(recorded)} deals; the seed and the moves make "
                f"{len(computed)}.",
                "deals",
            )
        elif recorded:
            report.ok(f"All {len(recorded)} deals hold exactly the cards the seed gives.", "deals")
    if failed is None:
        outcome = state.outcome()
        if outcome is None:
            report.fail("The recorded moves do not finish the game.", "result")
        elif plain(outcome.to_wire()) != plain(record["outcome"]):
            report.fail("The recorded result is not the one these cards and moves give.", "result")
        else:
            report.ok("The recorded result is the one these cards and moves give.", "result")
    unfair = None
    if params.get("deck") is not None:
        unfair = "the deck was stacked"
    elif not deal.get("fair"):
        unfair = deal.get("note") or "the record marks it as not fair"
    if unfair is not None:
        report.checks.append((False, f"Not a fair deal: {unfair}."))
        report.codes.append("fair")
        if report.verdict == PASS:
            report.verdict = NOT_FAIR
    return report
