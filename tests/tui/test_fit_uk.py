"""test_fit.py's walk in Ukrainian (ASCII), in a file of its own: ``--dist loadfile`` then
runs it on another worker than the other languages' walks."""

from .test_fit import walk_in


async def test_nothing_is_cut_at_80x24(hub):
    await walk_in(hub, "uk-ascii")
