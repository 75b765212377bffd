"""Keep the message catalogs in step with the code: ``python -m gambit_tui.catalog``.

Extracts every ``_()``, ``N_()``, ``ngettext()``, ``pgettext()`` and ``NC_()`` string of the
app with Babel (the last two with their context), and the hub's sentences (``HubError`` and
``said`` templates) and rewrites the English catalog with each
message translated as itself, so English is always complete.
Other languages' catalogs (``uk``, ``de``) gain the new messages untranslated, keep their
translations and their own Plural-Forms header; messages the code no longer uses are kept as
obsolete (``#~``) entries. Tests fail when any catalog lags behind the code.
"""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

from .i18n import DOMAIN, LOCALE_DIR

PACKAGE = Path(__file__).parent
KEYWORDS = {
    "_": None,
    "N_": None,
    "ngettext": (1, 2),
    "pgettext": ((1, "c"), 2),
    "NC_": ((1, "c"), 2),
}
#: The hub's sentences (refusals and notices), sent as an English template with its arguments
#: (``server/hub/errors.py``): read from the hub's source as text, never imported, so that the
#: app can say them in its player's language.
HUB = PACKAGE.parent / "server" / "hub"
HUB_KEYWORDS = {"HubError": (2,), "said": (1,)}
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)
METHOD_MAP = [("**/locale/**", "ignore"), ("**.py", "python")]


def extract() -> Catalog:
    """Every message the app's code can show."""
    catalog = Catalog(domain=DOMAIN, project="Gambit", charset="utf-8")
    for filename, lineno, message, comments, context in extract_from_dir(
        str(PACKAGE), method_map=METHOD_MAP, keywords=KEYWORDS
    ):
        catalog.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    for name in card_names():
        catalog.add(name, None, [("../protocol/cards.py", 0)])
    for filename, lineno, message, comments, _context in extract_from_dir(
        str(HUB), method_map=[("**.py", "python")], keywords=HUB_KEYWORDS
    ):
        catalog.add(message, None, [(f"../server/hub/{filename}", lineno)], auto_comments=comments)
    return catalog


def card_names() -> list[str]:
    """The cards' and suits' names the app shows (``names.py``, ``fortunes_text.py``), kept
    once, in English, in ``protocol.cards``."""
    from protocol import cards

    tables = (
        cards.TAROKKA_SUITS,
        cards.FRENCH_SUITS,
        cards.FRENCH_COURTS,
        cards.TAROKKA_NAMES,
        cards.FORTUNES_SUITS,
        cards.FORTUNES_COURTS,
    )
    return list(dict.fromkeys(name for table in tables for name in table.values()))


def english(template: Catalog) -> Catalog:
    """The English catalog: each message translated as itself (plurals by their two forms).

    Its dates are fixed, so running the tool without changing a message changes no file."""
    out = Catalog(
        locale="en",
        domain=DOMAIN,
        project="Gambit",
        charset="utf-8",
        header_comment="# English messages of Gambit, made by `python -m gambit_tui.catalog`.",
        fuzzy=False,
        creation_date=FIXED_DATE,
        revision_date=FIXED_DATE,
        version="0.1",
        last_translator="Gambit",
        language_team="Gambit",
        msgid_bugs_address="-",
    )
    for message in template:
        if not message.id:
            continue
        out.add(message.id, message.id, message.locations, context=message.context)
    return out


def catalog_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def write(catalog: Catalog, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as handle:
        write_po(handle, catalog, width=100, omit_header=False, sort_output=True,
                 include_lineno=False)  # fmt: skip


def main() -> int:
    template = extract()
    write(english(template), catalog_path("en"))
    for lang_dir in sorted(LOCALE_DIR.iterdir()):
        path = lang_dir / "LC_MESSAGES" / f"{DOMAIN}.po"
        if lang_dir.name == "en" or not path.is_file():
            continue
        with path.open("rb") as handle:
            catalog = read_po(handle, locale=lang_dir.name, domain=DOMAIN)
        # No fuzzy guesses (Babel offered "Priest" for "Result", "Cancel" for "Ace"): a new
        # message stays untranslated, and the catalog tests say so until a translator fills it
        # in. The creation date stays fixed so an unchanged catalog is not rewritten.
        catalog.update(template, no_fuzzy_matching=True, update_creation_date=False)
        write(catalog, path)
    print(f"{len(template)} messages", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
