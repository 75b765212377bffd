"""When two display names are the same name: case, lookalike letters and mixed scripts.

A name is what players trust when they invite, befriend or chat, so a name that *looks like*
another one must be refused as firmly as the same name in other case. Three keys, from strict
to loose:

* :func:`name_key`: case and compatibility forms ignored. Unique in the store.
* :func:`skeleton`: a confusable skeleton after Unicode TR 39 (UTS #39, section 4): every
  character is replaced by the prototype of its class of lookalikes, so ``Аlice`` (Cyrillic А),
  ``Alіce`` (Cyrillic і), ``Aliсe`` (Cyrillic с), ``ᴀlice`` and ``Álice`` all give the
  skeleton of ``Alice``. Unlike TR 39's own skeleton it also ignores case (it starts from
  :func:`name_key`, so names equal ignoring case always share a skeleton) and accents
  (combining marks of script Inherited are dropped after NFD: ``Björn`` ~ ``Bjorn``; an Indic
  vowel sign is not such a mark and is kept, as it makes another name).
* :func:`mixed_script`: letters of two scripts in one name (Latin with Cyrillic, …), which no
  real name needs and every homograph attack does.

Distinct names in one script each stay possible: ``Олена`` and ``Olena`` have different
skeletons (л and н are not Latin lookalikes of l and n).

**Where the data comes from.** The ``confusable-homoglyphs`` package (PyPI) ships Unicode's
``confusables.txt`` and ``Scripts.txt`` as JSON, with no download at run time. Its confusables
table is stored both ways (each source lists its prototype, each prototype lists its sources),
so the prototype of a character is recovered here: a character listing several lookalikes is a
prototype; one listing a single lookalike that itself lists several (or that is a sequence, such
as ``m`` -> ``rn``) is a source of it. What is left are pairs that only list each other (a
prototype with a single source); either could be TR 39's prototype, and the smaller code point
is taken, which gives the same skeleton to both. The package's scripts table answers
:func:`mixed_script`. (Building our own table from Unicode's files would mean shipping or
fetching those files; the package already is that, and is maintained.)

**Small capitals supplement.** TR 39 treats ``ᴀ`` (U+1D00) as a prototype of its own, which is
right for a case-sensitive skeleton, but once case is ignored a small capital A is an A.
:data:`SMALL_CAPITALS` maps each Latin, Greek or Cyrillic small capital letter to its
lowercase letter (taken from the characters' Unicode names); it redirects the prototype of the
small capital's class, so every lookalike of ``ᴀ`` follows it to ``a`` (Cyrillic ``в``, whose
prototype is ``ʙ``, joins ``b``; Cyrillic ``м`` and ``к`` join ``m`` and ``k`` through ``ᴍ``
and ``ᴋ``). Where TR 39 already maps a small capital to a plain ASCII letter (``ᴦ`` -> ``r``)
that mapping is kept.

A known limit: the skeleton is taken after case folding, so it compares lowercase shapes. A
capital ``I`` is an ``i`` there, so ``AIice`` is not taken for ``Alice`` (TR 39 maps ``I`` to
``l``), and a name in capitals of one other script (Greek ``ΝΙΚΟ``) is not taken for the Latin
``NIKO``, whose lowercase forms differ. Keeping those would give ``ALICE`` and ``alice`` two
skeletons. Terminal fonts draw ``I`` and ``l`` apart, and a capital mixed into a name of the
other script is refused by :func:`mixed_script`.

:func:`skeleton_version` changes whenever the table or the recipe does; the store keeps the
version its stored skeletons were made with and recomputes them when it differs (a newer
``confusable-homoglyphs`` with a newer Unicode may move a character to another class).
"""

from __future__ import annotations

import functools
import hashlib
import json
import unicodedata

from confusable_homoglyphs import categories

#: Bump when the recipe of :func:`skeleton` changes (the table's own changes are hashed in).
RECIPE = 1

#: Small capital letter -> its lowercase letter (see the module docstring for why).
SMALL_CAPITALS: dict[str, str] = {
    "\u0262": "g",  # ɢ LATIN LETTER SMALL CAPITAL G
    "\u026a": "i",  # ɪ LATIN LETTER SMALL CAPITAL I
    "\u0274": "n",  # ɴ LATIN LETTER SMALL CAPITAL N
    "\u0280": "r",  # ʀ LATIN LETTER SMALL CAPITAL R
    "\u028f": "y",  # ʏ LATIN LETTER SMALL CAPITAL Y
    "\u0299": "b",  # ʙ LATIN LETTER SMALL CAPITAL B
    "\u029c": "h",  # ʜ LATIN LETTER SMALL CAPITAL H
    "\u029f": "l",  # ʟ LATIN LETTER SMALL CAPITAL L
    "\u1d00": "a",  # ᴀ LATIN LETTER SMALL CAPITAL A
    "\u1d01": "\u00e6",  # ᴁ LATIN LETTER SMALL CAPITAL AE -> æ
    "\u1d04": "c",  # ᴄ LATIN LETTER SMALL CAPITAL C
    "\u1d05": "d",  # ᴅ LATIN LETTER SMALL CAPITAL D
    "\u1d07": "e",  # ᴇ LATIN LETTER SMALL CAPITAL E
    "\u1d0a": "j",  # ᴊ LATIN LETTER SMALL CAPITAL J
    "\u1d0b": "k",  # ᴋ LATIN LETTER SMALL CAPITAL K
    "\u1d0d": "m",  # ᴍ LATIN LETTER SMALL CAPITAL M
    "\u1d0f": "o",  # ᴏ LATIN LETTER SMALL CAPITAL O
    "\u1d18": "p",  # ᴘ LATIN LETTER SMALL CAPITAL P
    "\u1d1b": "t",  # ᴛ LATIN LETTER SMALL CAPITAL T
    "\u1d1c": "u",  # ᴜ LATIN LETTER SMALL CAPITAL U
    "\u1d20": "v",  # ᴠ LATIN LETTER SMALL CAPITAL V
    "\u1d21": "w",  # ᴡ LATIN LETTER SMALL CAPITAL W
    "\u1d22": "z",  # ᴢ LATIN LETTER SMALL CAPITAL Z
    "\ua730": "f",  # ꜰ LATIN LETTER SMALL CAPITAL F
    "\ua731": "s",  # ꜱ LATIN LETTER SMALL CAPITAL S
    "\ua7af": "q",  # ꞯ LATIN LETTER SMALL CAPITAL Q
    "\u1d26": "\u03b3",  # ᴦ GREEK LETTER SMALL CAPITAL GAMMA -> γ
    "\u1d27": "\u03bb",  # ᴧ GREEK LETTER SMALL CAPITAL LAMDA -> λ
    "\u1d28": "\u03c0",  # ᴨ GREEK LETTER SMALL CAPITAL PI -> π
    "\u1d29": "\u03c1",  # ᴩ GREEK LETTER SMALL CAPITAL RHO -> ρ
    "\u1d2a": "\u03c8",  # ᴪ GREEK LETTER SMALL CAPITAL PSI -> ψ
    "\uab65": "\u03c9",  # ꭥ GREEK LETTER SMALL CAPITAL OMEGA -> ω
    "\u1d2b": "\u043b",  # ᴫ CYRILLIC LETTER SMALL CAPITAL EL -> л
}

#: Scripts that are not a script of their own: digits, spaces, punctuation, combining marks.
_COMMON = frozenset({"COMMON", "INHERITED", "Unknown"})
#: Script sets that one writing system uses together (UTS #39's Jpan, Kore and Hanb).
_TOGETHER = (
    frozenset({"HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"HAN", "HANGUL"}),
    frozenset({"HAN", "BOPOMOFO"}),
)
#: The package wraps right-to-left characters in LEFT-TO-RIGHT MARKs for display.
_LRM = "\u200e"


def name_key(name: str) -> str:
    """What two names must differ in to both be allowed: case (full Unicode casefolding) and
    compatibility forms (NFKC: a full-width ``Ａ`` is an ``a``) are ignored."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def _prototypes() -> dict[str, str]:
    """TR 39's source -> prototype map, recovered from the package's two-way table."""
    from confusable_homoglyphs import confusables  # 0.9 MB of JSON: load on first use only

    table = {
        key.replace(_LRM, ""): [entry["c"].replace(_LRM, "") for entry in entries]
        for key, entries in confusables.confusables_data.items()
    }
    out: dict[str, str] = {}
    for char, alike in table.items():
        if len(char) != 1 or len(alike) != 1:
            continue  # a sequence (only ever a prototype) or a prototype of several sources
        other = alike[0]
        # ``other`` is the prototype if it is a sequence, if it has other sources too, or (in
        # a pair that only lists each other) if it is the smaller code point of the two.
        if len(other) > 1 or len(table.get(other, ())) > 1 or other < char:
            out[char] = other
    return out


def _drop_marks(text: str) -> str:
    """NFD without the generic combining marks (accents): ``Á`` -> ``A``, ``й`` -> ``и``."""
    return "".join(
        ch
        for ch in unicodedata.normalize("NFD", text)
        if not (unicodedata.category(ch) in ("Mn", "Me") and categories.alias(ch) == "INHERITED")
    )


@functools.cache
def _table() -> dict[str, str]:
    """Character -> skeleton piece: TR 39's prototypes with the small capitals redirected,
    resolved to a fixed point (so one pass of :func:`_map` is enough)."""
    proto = _prototypes()
    redirect: dict[str, str] = {}
    # A small capital that is its own class's prototype first: ᴘ -> p wins over ᴩ -> ρ.
    for small, letter in sorted(SMALL_CAPITALS.items(), key=lambda kv: kv[0] in proto):
        head = proto.get(small, small)
        if head.isascii() or head in redirect:
            continue
        redirect[head] = letter

    def step(text: str) -> str:
        return _drop_marks("".join(redirect.get(ch, proto.get(ch, ch)) for ch in text))

    out: dict[str, str] = {}
    for char in proto.keys() | redirect.keys():
        value = char
        for _ in range(8):
            nxt = step(value)
            if nxt == value:
                break
            value = nxt
        else:
            raise RuntimeError(f"the confusables table loops at U+{ord(char):04X}")
        if value != char:
            out[char] = value
    return out


def _map(text: str) -> str:
    table = _table()
    return "".join(table.get(ch, ch) for ch in text)


@functools.lru_cache(maxsize=4096)
def skeleton(name: str) -> str:
    """The name's confusable skeleton: two names that look alike (ignoring case and accents)
    have the same one. Not for display; only for comparing."""
    text = _drop_marks(name_key(name))
    for _ in range(8):  # a prototype may be a capital (Cyrillic а -> Latin A) or a
        nxt = _drop_marks(name_key(_map(text)))  # compatibility form (‰ -> º/₀): fold again
        if nxt == text:
            break
        text = nxt
    return text


def scripts(name: str) -> set[str]:
    """The scripts of the name's characters (``LATIN``, ``CYRILLIC``…), Common and Inherited
    ones (digits, spaces, punctuation, accents) left out."""
    return {categories.alias(ch) for ch in name} - _COMMON


def mixed_script(name: str) -> bool:
    """True when the name mixes letters of several scripts (Latin with Cyrillic, …); Han with
    kana or Hangul counts as one writing system, as in Japanese and Korean names."""
    found = scripts(name)
    return len(found) > 1 and not any(found <= together for together in _TOGETHER)


@functools.cache
def skeleton_version() -> str:
    """Changes with the recipe or the data: stored skeletons made with another are stale."""
    data = json.dumps(sorted(_table().items()), ensure_ascii=False).encode()
    return f"{RECIPE}:{hashlib.sha256(data).hexdigest()[:16]}"
