"""A table's status is one of three (``server.hub.table.TableStatus``): a stored table whose
status is none of them is refused when it is read back, not carried into play."""

from __future__ import annotations

import pytest

from server.hub.table import TABLE_STATUSES, Seat, Table, TableStatus


def _table(status: TableStatus = "waiting") -> Table:
    return Table(1, "prophet", 3, {}, "ada", seats=[Seat(), Seat(), Seat()], status=status)


@pytest.mark.parametrize("status", TABLE_STATUSES)
def test_each_status_comes_back_from_the_record(status):
    assert Table.from_record(_table(status).record()).status == status


def test_a_record_with_an_unknown_status_is_refused():
    record = _table().record()
    record["status"] = "paused"
    with pytest.raises(ValueError, match="paused"):
        Table.from_record(record)
