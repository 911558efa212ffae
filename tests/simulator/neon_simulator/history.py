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
(``GET .../schema``) is derived from the same tables: each version also keeps every table's columns
(its layout), so that a table keeps its columns when its rows are gone (emptied, or a schema-only
branch's copy); a write names them (``columns``) or they follow the rows (the Python types of the
values), new columns added after the table's own.

An LSN is a function of time here (one step per simulated millisecond), so every moment has one
and an LSN names a moment: ``lsn_of`` and ``us_of_lsn``.
"""

from __future__ import annotations

import copy
import difflib
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


def columns_of(rows, known=None):
    """A table's columns (name -> type): ``known`` ones first, then those only the rows have."""
    columns = dict(known or {})
    for row in rows or ():
        for column, value in row.items():
            columns.setdefault(column, column_type(value))
    return columns


def layout_of(databases, layout=None, before=None):
    """Every table's columns (database -> table -> columns): ``layout``'s where it names them, else the
    table's columns in ``before`` (the layout it had) followed by those of its rows."""
    layout, before = layout or {}, before or {}
    result = {}
    for database, tables in databases.items():
        result[database] = {}
        for table, rows in tables.items():
            named = (layout.get(database) or {}).get(table)
            result[database][table] = dict(named) if named is not None else \
                columns_of(rows, (before.get(database) or {}).get(table))
    return result


class BranchData:
    """A branch's databases (name -> table -> rows), each version kept with the moment it was written and
    the layout (the tables' columns) it had then (``layouts``, in step with ``versions``)."""

    def __init__(self, start_us, databases=None, layout=None):
        databases = copy.deepcopy(databases or {})
        self.versions = [(start_us, databases)]
        self.layouts = [(start_us, layout_of(databases, layout))]

    @property
    def start_us(self):
        return self.versions[0][0]

    @staticmethod
    def _chosen(versions, us):
        chosen = versions[0][1]
        for version_us, item in versions:
            if version_us > us:
                break
            chosen = item
        return copy.deepcopy(chosen)

    def at(self, us):
        """The databases as they were at ``us`` (a copy); before the branch's first version, its first."""
        return self._chosen(self.versions, us)

    def layout_at(self, us):
        """The tables' columns at ``us`` (database -> table -> columns), as ``at``."""
        return self._chosen(self.layouts, us)

    def head(self):
        return copy.deepcopy(self.versions[-1][1])

    def write(self, us, database, table, rows, columns=None):
        """A new version at ``us`` where ``table`` of ``database`` holds ``rows`` (None drops the table);
        its columns are ``columns`` when given, else the table's own followed by those of the rows."""
        databases = self.head()
        tables = databases.setdefault(database, {})
        layout = copy.deepcopy(self.layouts[-1][1])
        if rows is None:
            tables.pop(table, None)
            (layout.get(database) or {}).pop(table, None)
        else:
            tables[table] = copy.deepcopy(list(rows))
            known = (layout.get(database) or {}).get(table)
            layout.setdefault(database, {})[table] = dict(columns) if columns is not None else columns_of(rows, known)
        self.replace(us, databases, layout)

    def replace(self, us, databases, layout=None):
        """A new version at ``us`` holding ``databases`` (a restore, a reset: the branch's data is replaced),
        with ``layout`` (the tables' columns; by default each table's as it was here, then its rows')."""
        layout = layout_of(databases, layout, self.layouts[-1][1])
        while self.versions and self.versions[-1][0] > us:  # the clock never goes back; kept for safety
            self.versions.pop()
            self.layouts.pop()
        self.versions.append((us, copy.deepcopy(databases)))
        self.layouts.append((us, layout))

    def forked(self, us):
        """A child's data: this branch's as it was at ``us``, its own history starting there."""
        return BranchData(us, self.at(us), self.layout_at(us))

    def schema_only(self, us, start_us):
        """A schema-only branch's data: this branch's tables at ``us``, with their columns and no rows."""
        databases = dict((database, dict((table, []) for table in tables)) for database, tables in self.at(us).items())
        return BranchData(start_us, databases, self.layout_at(us))

    def schema(self, us, database):
        """The stand-in schema of ``database`` at ``us`` (schema_of)."""
        return schema_of(self.at(us), database, self.layout_at(us))


def schema_of(databases, database, layout=None):
    """The stand-in schema of ``database``: ``{"tables": [{schema, name, columns: [{name, type}]}]}`` (SPEC json).
    Each table's columns are ``layout``'s (database -> table -> columns) where it has them, else its rows'."""
    tables = []
    named = (layout or {}).get(database) or {}
    for name in sorted(set(databases.get(database) or {}) | set(named)):
        columns = named.get(name)
        if columns is None:
            columns = columns_of((databases.get(database) or {}).get(name))
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


def schema_diff(base_sql, compare_sql, database):
    """The unified diff of two schemas' SQL (``--- a/<database>``, ``+++ b/<database>``, hunks), "" when equal:
    what ``compare_schema`` answers in ``diff`` (notes section 8: "--- a/neondb\n+++ b/neondb\n@@ ...")."""
    lines = difflib.unified_diff(base_sql.splitlines(True), compare_sql.splitlines(True),
                                 "a/" + database, "b/" + database)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def go_duration(seconds):
    """``seconds`` as Go's time.Duration prints it (``6h0m0s``, ``1m30s``, ``5s``, ``0s``): how the service names
    a history window in its messages (notes section 5)."""
    seconds = int(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, rest = divmod(rest, 60)
    if hours:
        return "%dh%dm%ds" % (hours, minutes, rest)
    if minutes:
        return "%dm%ds" % (minutes, rest)
    return "%ds" % rest
