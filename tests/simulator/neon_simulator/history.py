# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A branch's history: LSNs over time and a stand-in for its data, every version kept.

The live service keeps each branch's write-ahead log for the project's history window, so a
branch can be created, restored or snapshotted at any point of it (a timestamp or an LSN). The
simulator has no Postgres, so a branch's data is a stand-in: per database, tables of rows, which a
test writes and reads through the control API (``/_simulator/projects/<id>/branches/<id>/data``).
Every write is a new version at the simulator's clock; ``at(us)`` is the data as it was then, so a
restore "to before the bad change" shows the rows of before it. The schema a branch answers
(``GET .../schema``) is derived from the same tables (their columns and the Python types of the values).

An LSN is a function of time here (one step per simulated millisecond), so every moment has one
and an LSN names a moment: ``lsn_of`` and ``us_of_lsn``.
"""

from __future__ import annotations

import copy
import re

LSN_RE = re.compile(r"^([0-9A-Fa-f]{1,8})/([0-9A-Fa-f]{1,8})$")
_WRAP = 0xFFFFFFFF
_US_PER_STEP = 1000


def lsn_of(us):
    """The LSN (``0/1A2B3C4``) of the moment ``us``, growing with time."""
    return "0/%X" % ((us // _US_PER_STEP) % _WRAP)


def parse_lsn(text):
    """An LSN's 64-bit position; ValueError when ``text`` is not ``X/Y`` of hexadecimal numbers."""
    match = LSN_RE.match(text or "") if isinstance(text, str) else None
    if match is None:
        raise ValueError("not an LSN (such as 0/1A2B3C4): %r" % (text,))
    return (int(match.group(1), 16) << 32) | int(match.group(2), 16)


def us_of_lsn(text, near_us):
    """The last moment whose LSN is ``text`` (so what was written at that LSN is in it), the latest such at or
    before ``near_us`` (LSNs wrap every ~50 days)."""
    position = parse_lsn(text) % _WRAP
    base = (near_us // _US_PER_STEP) - ((near_us // _US_PER_STEP) % _WRAP)
    step = base + position
    if step * _US_PER_STEP > near_us:
        step -= _WRAP
    return step * _US_PER_STEP + _US_PER_STEP - 1


def column_type(value):
    """The Postgres type a stand-in column's value stands for."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "bigint"
    if isinstance(value, float):
        return "double precision"
    return "text"


class BranchData:
    """A branch's databases (name -> table -> rows), each version kept with the moment it was written."""

    def __init__(self, start_us, databases=None):
        self.versions = [(start_us, copy.deepcopy(databases or {}))]

    @property
    def start_us(self):
        return self.versions[0][0]

    def at(self, us):
        """The databases as they were at ``us`` (a copy); before the branch's first version, its first."""
        chosen = self.versions[0][1]
        for version_us, databases in self.versions:
            if version_us > us:
                break
            chosen = databases
        return copy.deepcopy(chosen)

    def head(self):
        return copy.deepcopy(self.versions[-1][1])

    def write(self, us, database, table, rows):
        """A new version at ``us`` where ``table`` of ``database`` holds ``rows`` (None drops the table)."""
        databases = self.head()
        tables = databases.setdefault(database, {})
        if rows is None:
            tables.pop(table, None)
        else:
            tables[table] = copy.deepcopy(list(rows))
        self.replace(us, databases)

    def replace(self, us, databases):
        """A new version at ``us`` holding ``databases`` (a restore, a reset: the branch's data is replaced)."""
        while self.versions and self.versions[-1][0] > us:  # the clock never goes back; kept for safety
            self.versions.pop()
        self.versions.append((us, copy.deepcopy(databases)))

    def forked(self, us):
        """A child's data: this branch's as it was at ``us``, its own history starting there."""
        return BranchData(us, self.at(us))


def schema_of(databases, database):
    """The stand-in schema of ``database``: ``{"tables": [{schema, name, columns: [{name, type}]}]}`` (SPEC json)."""
    tables = []
    for name in sorted((databases.get(database) or {})):
        columns = {}
        for row in databases[database][name]:
            for column, value in row.items():
                columns.setdefault(column, column_type(value))
        tables.append({"schema": "public", "name": name,
                       "columns": [{"name": column, "type": kind} for column, kind in columns.items()]})
    return {"tables": tables}


def schema_sql(schema):
    """The pg_dump-like SQL of a stand-in schema (what ``format=sql`` answers)."""
    lines = []
    for table in schema["tables"]:
        columns = ",\n".join("    %s %s" % (column["name"], column["type"]) for column in table["columns"])
        lines.append("CREATE TABLE %s.%s (\n%s\n);\n" % (table["schema"], table["name"], columns))
    return "\n".join(lines)
