"""Which CSS rules apply to a widget, worked out once for every app of the process.

Textual applies its stylesheet to every node as it is mounted, and to every node of a
screen again when the screen is shown: for each rule whose last selector could name the node,
it walks the node's path from the app down and checks the selectors, then picks the winning
value of every style. Its cache of the answer lives for one ``update_nodes`` call, keyed by
the node's *parent object*; a new app (a new player) works the same answers out again for
the same widgets at the same places: a third of starting a player's app went here (and as
much again on making the same styles anew for widgets that had them).

The answer depends only on the rules (the same rule objects, in the same order: the parsed
CSS is shared by the process, :mod:`.textual_patches`) and, for each node on the path from
the app to the node, on what a selector of those rules can test: its class (type names and
the pseudo classes it knows), the ids and CSS classes the rules name, and whether it has each
pseudo class they name. Here the answer (the ``RulesMap``, which Textual shares between nodes
too and nothing mutates) is kept for the process under that key; a miss runs Textual's own
``Stylesheet.apply``. A node given the same answer again (a screen's styles are applied to
all its nodes when it is shown, and again when the screen's size classes change) keeps its
styles: Textual would set every rule to the value it has and make its parts' styles again,
equal to those they have (it refreshes the node only if they differ). So the key also holds
what the rules of the node's parts test on its path (``W:focus > .w--part`` restyles the
part when W gains focus, even where W's own rules name no ``:focus``).

A node whose rules test pseudo classes that depend on its siblings
(``:first-child``, ``:odd``, …) or on the focus of its children (``:focus-within``, which
Textual also leaves out of its cache) is always worked out by Textual.

Private Textual names read: ``Stylesheet.rules``, ``Stylesheet.rules_map``,
``Stylesheet.replace_rules``, ``Stylesheet._process_component_classes``,
``Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE``, ``DOMNode._id``, ``DOMNode._classes``,
``DOMNode._selector_names``, ``DOMNode._PSEUDO_CLASSES``, ``DOMNode.css_path_nodes`` and the
flags ``apply`` sets (``_has_hover_style``, ``_has_focus_within``, ``_has_order_style``,
``_has_odd_or_even``). Replaced: ``Stylesheet.apply``. Guarded by
``tests/tui/test_shared_styles.py``, which compares the styles of every node of real screens
with Textual's own ``apply``, counts a second app's selector checks and follows a part's
style through focus changes.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from typing import Any

from textual.css.model import SelectorType
from textual.css.stylesheet import Stylesheet
from textual.dom import DOMNode

from gambit_tui.shared_memos import shared_memo

#: Textual's own ``Stylesheet.apply``, which does the work on a miss.
TEXTUALS = Stylesheet.apply

#: Pseudo classes Textual keeps out of its own cache (they depend on siblings or children).
_UNCACHED = frozenset(Stylesheet._EXCLUDE_PSEUDO_CLASSES_FROM_CACHE)
_ORDER = frozenset({"first-of-type", "last-of-type", "first-child", "last-child", "empty"})

#: Most answers (and rule lists) kept; a Gambit app has a few hundred distinct nodes.
ANSWERS = 8192
RULE_LISTS = 32

#: A number for every distinct list of rule objects, with the list (kept alive, so that the
#: ids in the key cannot be reused by new rules).
_rule_lists: dict[tuple[int, ...], tuple[int, list[Any]]] = {}
_numbers = itertools.count()
#: (rules, node class, id, classes) -> (rule ids, pseudo classes named, flags, cacheable)
_candidates: dict[tuple[Any, ...], tuple[Any, ...]] = shared_memo("style candidates", {})
#: the key of a node's path -> its rules map (None: no rule applies, Textual sets nothing)
_answers: dict[tuple[Any, ...], dict[str, Any] | None] = shared_memo("style answers", {})
_NOTHING = object()


def _rules_number(sheet: Stylesheet) -> int:
    """The number of ``sheet``'s current list of rules (the same for every app whose CSS
    parsed to the same rule objects in the same order)."""
    rules = sheet.rules
    memo = sheet.__dict__.get("_gambit_rules_number")
    if memo is not None and memo[0] is rules:
        return memo[1]
    key = tuple(map(id, rules))
    entry = _rule_lists.get(key)
    if entry is None:
        if len(_rule_lists) >= RULE_LISTS:
            del _rule_lists[next(iter(_rule_lists))]
        entry = _rule_lists[key] = (next(_numbers), list(rules))
    sheet._gambit_rules_number = (rules, entry[0])  # type: ignore[attr-defined]  # our note on Textual's object
    return entry[0]


def _candidates_of(sheet: Stylesheet, number: int, node: DOMNode) -> tuple[Any, ...]:
    """What Textual's ``apply`` finds before it checks a selector (the rules whose last
    selector could name ``node``, the flags it sets), and what those rules and the rules of
    the node's parts can test: the pseudo classes they name (of the node; of its ancestors,
    those of selectors before the last), the ids and classes they name, and whether Textual
    would cache the answer."""
    key = (number, type(node), node._id, frozenset(node._classes))
    found = _candidates.get(key)
    if found is None:
        rules_map = sheet.rules_map
        names = rules_map.keys() & node._selector_names
        limit = {rule for name in names for rule in rules_map[name]}
        rules = [rule for rule in sheet.rules if rule in limit]
        pseudo = set().union(*[rule.pseudo_classes for rule in rules])
        flags = (
            "hover" in pseudo,
            "focus-within" in pseudo,
            not pseudo.isdisjoint(_ORDER),
            "odd" in pseudo or "even" in pseudo,
        )
        # The rules of the node's parts (component classes) test the node and its ancestors
        # too: what they test is part of the key, so a node whose key is the same has the
        # same parts' styles as well.
        components = sorted(node._get_component_classes())
        parts = [
            rule
            for name in [f".{name}" for name in components] + (["*"] if components else [])
            for rule in rules_map.get(name, ())
        ]
        chains = [ss.selectors for rule in rules for ss in rule.selector_set]
        part_chains = [ss.selectors for rule in parts for ss in rule.selector_set]
        named = [selector for chain in chains + part_chains for selector in chain]
        ids = frozenset(s.name for s in named if s.type == SelectorType.ID)
        classes = frozenset(s.name for s in named if s.type == SelectorType.CLASS)
        # A selector before the last one tests an ancestor (or, joined to the last one
        # without a space, the node itself: its pseudo classes are in ``pseudo`` too); before
        # the last one of a part's rule, the node or an ancestor.
        above = set().union(*[s.pseudo_classes for chain in chains for s in chain[:-1]])
        part_above = set().union(*[s.pseudo_classes for c in part_chains for s in c[:-1]])
        found = (
            tuple(sorted(pseudo | part_above)),
            tuple(sorted(above | part_above)),
            flags,
            pseudo.isdisjoint(_UNCACHED),
            ids,
            classes,
        )
        if len(_candidates) >= ANSWERS:
            del _candidates[next(iter(_candidates))]
        _candidates[key] = found
    return found


def _path_key(
    number: int,
    node: DOMNode,
    pseudo: tuple[str, ...],
    above: tuple[str, ...],
    ids: frozenset[str],
    classes: frozenset[str],
) -> tuple[Any, ...]:
    """All a selector of the candidate rules can test on the path from the app to ``node``."""
    key: list[Any] = [number]
    for path_node in node.css_path_nodes:
        checks: Mapping[str, Callable[[Any], bool]] = path_node._PSEUDO_CLASSES
        node_id = path_node._id
        key.append(type(path_node))
        key.append(node_id if node_id in ids else None)
        key.append(classes.intersection(path_node._classes))
        tested = pseudo if path_node is node else above
        if tested:
            key.append(tuple(name for name in tested if name in checks and checks[name](path_node)))
    return tuple(key)


def apply_shared(
    self: Stylesheet,
    node: DOMNode,
    *,
    animate: bool = False,
    cache: dict[tuple[Any, ...], Any] | None = None,
) -> None:
    """``Stylesheet.apply``, with the answer shared by every app of the process."""
    number = _rules_number(self)
    pseudo, above, flags, cacheable, ids, classes = _candidates_of(self, number, node)
    if not cacheable:
        node.__dict__.pop("_gambit_styles", None)
        TEXTUALS(self, node, animate=animate, cache=cache)
        return
    key = _path_key(number, node, pseudo, above, ids, classes)
    answer = _answers.get(key, _NOTHING)
    if answer is _NOTHING:
        caught: dict[tuple[Any, ...], Any] = {}
        TEXTUALS(self, node, animate=animate, cache=caught)
        answer = next(iter(caught.values()), None)
        if len(_answers) >= ANSWERS:
            del _answers[next(iter(_answers))]
        _answers[key] = answer
        node._gambit_styles = (key, answer)  # type: ignore[attr-defined]  # our note on Textual's object
        return
    (
        node._has_hover_style,
        node._has_focus_within,
        node._has_order_style,
        node._has_odd_or_even,
    ) = flags
    last = node.__dict__.get("_gambit_styles")
    if last is not None and last[1] is answer and last[0] == key:
        # The answer the node was given last: Textual would set every rule to the value it
        # has and make its parts' styles again, equal to those they have.
        node.notify_style_update()
        return
    if answer is not None:
        self.replace_rules(node, answer, animate=animate)  # type: ignore[arg-type]  # a RulesMap (_NOTHING made it object)
    self._process_component_classes(node)
    node._gambit_styles = (key, answer)  # type: ignore[attr-defined]  # our note on Textual's object
