# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Masking for real (``--postgres``): an anonymized branch's rules applied by SQL to its data (anonymized.py).

Neon masks with the PostgreSQL Anonymizer extension (``anon``). The local Neon has no such extension: it installs an
``anon`` schema of plain SQL functions with the names and arguments of PostgreSQL Anonymizer's most used ones
(``FUNCTIONS``) in the branch's databases, and a run rewrites each rule's column with one ``UPDATE`` per table, all
of a database's in one transaction. Before anything is changed, a run checks that every rule's table and column
exist and that every rule's ``masking_function`` is one call of one of ``FUNCTIONS`` (below): otherwise, or when PostgreSQL
refuses a statement (a value of the wrong type for its column, a function outside ``anon``), the run ends in
``error`` with a message naming it, and that database's data is as it was (its transaction is not committed).

- Fakes (``fake_*``, ``dummy_*``, ``random_*``) are random, as in PostgreSQL Anonymizer; the fake emails are at
  ``example.com``/``.net``/``.org``.
- ``anon.hash(value)`` is deterministic (the same value, the same hash: a hex SHA-512, as PostgreSQL Anonymizer's
  default algorithm, without its secret salt), as are the ``pseudo_*`` functions of a seed.
- ``anon.partial(value, prefix, padding, suffix)`` and ``anon.partial_email(value)`` are PostgreSQL Anonymizer's.
- A ``masking_function`` is exactly one call of one of ``FUNCTIONS``: ``anon.<name>(<arguments>)``, each argument a
  number (``4``, ``-1.5``), a single-quoted string without backslashes (``'***'``, ``''`` for a quote in it),
  ``NULL``, or a column of the rule's table (``email``, folded to lower case as PostgreSQL does, or ``"Email"``).
  It is parsed (``parse_call``) and its SQL built from the parts (names quoted as identifiers, strings as
  literals): no text of it reaches SQL as it was given. Anything else (``anon.fake_email() WHERE false``, an
  operator, a nested call, a psql backslash command) ends the run in ``error`` naming the rule and why.
- A ``masking_value`` is a value, always sent as a quoted literal: ``'REDACTED'`` (an SQL string literal: its
  text), ``0``, ``true`` (their text, which PostgreSQL converts to the column's type) and ``NULL`` (no value):
  the forms of Neon's guide; any other text is set as that string.
"""

from __future__ import annotations

import re
from decimal import Decimal

from .pg_cluster import identifier, literal

FIRST_NAMES = ("Alex", "Blake", "Casey", "Drew", "Emery", "Finley", "Harper", "Jordan", "Kai", "Logan", "Morgan",
               "Quinn", "Riley", "Rowan", "Sage", "Taylor")
LAST_NAMES = ("Abbott", "Barnes", "Carver", "Dalton", "Ellison", "Foster", "Garner", "Hayes", "Irwin", "Jensen",
              "Keller", "Lawson", "Mercer", "Nolan", "Porter", "Ramsey")
COMPANIES = ("Acme Corp", "Globex", "Initech", "Umbrella Ltd", "Hooli", "Vandelay Industries")
CITIES = ("Springfield", "Riverton", "Fairview", "Lakeside", "Greenville", "Oakridge")
COUNTRIES = ("Atlantis", "Freedonia", "Genovia", "Latveria", "Wakanda", "Zubrowka")


def _pick(values):
    """An SQL expression picking one of ``values`` at random."""
    return "(ARRAY[%s])[floor(random() * %d)::int + 1]" % (", ".join(literal(value) for value in values), len(values))


def _seeded(values, seed):
    """An SQL expression picking one of ``values`` by the md5 of ``seed`` (the same seed, the same value)."""
    return "(ARRAY[%s])[('x' || substr(md5(%s), 1, 7))::bit(28)::int %% %d + 1]" % (
        ", ".join(literal(value) for value in values), seed, len(values))


# name -> (arguments, result type, SQL body): PostgreSQL Anonymizer's names and arguments
FUNCTIONS = {
    "fake_first_name": ("", "text", "SELECT " + _pick(FIRST_NAMES)),
    "fake_last_name": ("", "text", "SELECT " + _pick(LAST_NAMES)),
    "fake_email": ("", "text", "SELECT lower(%s || '.' || %s) || floor(random() * 100000)::int || '@example.' || %s"
                   % (_pick(FIRST_NAMES), _pick(LAST_NAMES), _pick(("com", "net", "org")))),
    "fake_company": ("", "text", "SELECT " + _pick(COMPANIES)),
    "fake_city": ("", "text", "SELECT " + _pick(CITIES)),
    "fake_country": ("", "text", "SELECT " + _pick(COUNTRIES)),
    "dummy_first_name": ("", "text", "SELECT anon.fake_first_name()"),
    "dummy_last_name": ("", "text", "SELECT anon.fake_last_name()"),
    "dummy_free_email": ("", "text", "SELECT anon.fake_email()"),
    "dummy_uuidv4": ("", "uuid", "SELECT gen_random_uuid()"),
    "random_string": ("n integer", "text",
                      "SELECT coalesce(string_agg(substr('abcdefghijklmnopqrstuvwxyz0123456789', "
                      "floor(random() * 36)::int + 1, 1), ''), '') FROM generate_series(1, n)"),
    "random_phone": ("phone_prefix text DEFAULT '0'", "text",
                     "SELECT phone_prefix || lpad(floor(random() * 1000000000)::bigint::text, 9, '0')"),
    "dummy_phone_number": ("", "text", "SELECT anon.random_phone('+1 ')"),
    "random_zip": ("", "text", "SELECT lpad(floor(random() * 100000)::int::text, 5, '0')"),
    "random_int_between": ("int_start integer, int_stop integer", "integer",
                           "SELECT int_start + floor(random() * (int_stop - int_start + 1))::int"),
    "hash": ("seed text", "text", "SELECT encode(sha512(convert_to(seed, 'UTF8')), 'hex')"),
    "pseudo_first_name": ("seed anyelement", "text", "SELECT " + _seeded(FIRST_NAMES, "seed::text")),
    "pseudo_last_name": ("seed anyelement", "text", "SELECT " + _seeded(LAST_NAMES, "seed::text")),
    "pseudo_email": ("seed anyelement", "text", "SELECT 'user' || substr(md5(seed::text), 1, 12) || '@example.com'"),
    "partial": ("ov text, prefix integer, padding text, suffix integer", "text",
                "SELECT substring(ov FROM 1 FOR prefix) || padding || substring(ov FROM (length(ov) - suffix + 1) "
                "FOR suffix)"),
    "partial_email": ("ov text", "text",
                      "SELECT substring(regexp_replace(ov, '@.*', '') FROM 1 FOR 2) || '******' || '@' || "
                      "substring(regexp_replace(ov, '.*@', '') FROM 1 FOR 2) || '******' || '.' || "
                      "regexp_replace(ov, '.*[.]', '')"),
}
# "SELECT anon.x()" in a function's body needs x made first
ORDER = sorted(FUNCTIONS, key=lambda name: "anon." in FUNCTIONS[name][2])
SCHEMA_SQL = "CREATE SCHEMA IF NOT EXISTS anon;\nGRANT USAGE ON SCHEMA anon TO PUBLIC;\n" + "".join(
    "CREATE OR REPLACE FUNCTION anon.%s(%s) RETURNS %s LANGUAGE sql VOLATILE AS $anon$ %s $anon$;\n"
    % (name, FUNCTIONS[name][0], FUNCTIONS[name][1], FUNCTIONS[name][2]) for name in ORDER)
CALL_RE = re.compile(r"\s*anon\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*", re.DOTALL)
ARGUMENT_RE = re.compile(r"""\s*(?:
    (?P<number>[+-]?\d+(?:\.\d+)?)
  | '(?P<string>(?:[^'\\]|'')*)'
  | (?P<null>NULL)(?![A-Za-z0-9_$])
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
  | "(?P<quoted>(?:[^"\\]|"")+)"
  )\s*(?P<next>,|$)""", re.VERBOSE | re.IGNORECASE)
VALUE_RE = re.compile(r"\s*(?:'(?P<string>(?:[^']|'')*)'|(?P<number>[+-]?\d+(?:\.\d+)?)|(?P<boolean>true|false)"
                      r"|(?P<null>null))\s*", re.IGNORECASE)


def _error(failure):
    """PostgreSQL's own words in psql's failure (``ERROR:  ...`` and no more), else the failure."""
    match = re.search(r"ERROR:\s+(.*)", str(failure))
    return match.group(1).strip() if match else str(failure)


def parse_call(function, columns):
    """``function`` (a ``masking_function``) as (name, arguments): each argument ``("number", text)``, ``("string",
    text)``, ``("null", None)`` or ``("column", name)``; ValueError saying why it is not one call of an ``anon``
    function the local Neon has with such arguments (see the module's text). ``columns``: the table's columns."""
    call = CALL_RE.fullmatch(function)
    if call is None:
        raise ValueError("masking function '%s' is not one call anon.<name>(<arguments>) and nothing else" % function)
    name, text = call.groups()
    if name not in FUNCTIONS:
        raise ValueError("masking function anon.%s is not available in the local Neon: its anon schema has %s"
                         % (name, ", ".join("anon.%s()" % known for known in sorted(FUNCTIONS))))
    arguments = []
    position = 0
    while text.strip() and position < len(text):
        argument = ARGUMENT_RE.match(text, position)
        if argument is None or argument.end() == position:
            raise ValueError("masking function '%s': argument %d is not a number, a quoted string without backslashes, "
                             "NULL or a column name" % (function, len(arguments) + 1))
        position = argument.end()
        if argument.group("number") is not None:
            arguments.append(("number", argument.group("number")))
        elif argument.group("string") is not None:
            arguments.append(("string", argument.group("string").replace("''", "'")))
        elif argument.group("null") is not None:
            arguments.append(("null", None))
        else:
            column = argument.group("name")
            column = column.lower() if column is not None else argument.group("quoted").replace('""', '"')
            if column not in columns:
                raise ValueError("masking function '%s': %s is not a column of the table" % (function, column))
            arguments.append(("column", column))
        if argument.group("next") == "," and position == len(text):
            raise ValueError("masking function '%s': an argument is missing after the last comma" % function)
    return name, arguments


def _argument_sql(kind, value):
    if kind == "number":
        return str(Decimal(value))
    if kind == "string":
        return literal(value)
    if kind == "column":
        return identifier(value)
    return "NULL"


def expression(rule, columns):
    """The SQL a rule sets its column to, built from its parsed parts (``columns``: its table's); ValueError naming
    what the local Neon cannot do."""
    if "masking_value" in rule:
        value = VALUE_RE.fullmatch(rule["masking_value"])
        if value is None:
            return literal(rule["masking_value"])
        if value.group("null") is not None:
            return "NULL"
        if value.group("string") is not None:
            return literal(value.group("string").replace("''", "'"))
        return literal((value.group("number") or value.group("boolean")).lower())
    name, arguments = parse_call(rule["masking_function"], columns)
    return "%s.%s(%s)" % (identifier("anon"), identifier(name),
                          ", ".join(_argument_sql(kind, value) for kind, value in arguments))


def prepare(real, project_id, branch, branches, now_us):
    """The ``anon`` schema installed in each of the branch's databases: None, or what kept it from being so."""
    for database in branch.databases:
        try:
            real.run_sql(project_id, branch, database, SCHEMA_SQL, branches, now_us)
        except (RuntimeError, ValueError) as failure:
            return "installing the anon schema in database %s failed: %s" % (database, _error(failure))
    return None


def anonymize(real, project_id, branch, rules, branches, now_us):
    """The rules applied to the branch's data (see the module's text): None, or what stopped them."""
    by_database = {}
    for rule in rules:
        by_database.setdefault(rule["database_name"], []).append(rule)
    plans = {}
    for database, its_rules in by_database.items():  # every check before any change
        try:
            listed = real.run_sql(project_id, branch, database, "SELECT table_schema || '.' || table_name || '.' || "
                                  "column_name FROM information_schema.columns", branches, now_us)
        except (RuntimeError, ValueError) as failure:
            return "reading the columns of database %s failed: %s" % (database, _error(failure))
        columns = set(listed.splitlines())
        tables = {column.rsplit(".", 1)[0] for column in columns}
        updates = {}
        for rule in its_rules:
            table = "%s.%s" % (rule["schema_name"], rule["table_name"])
            where = "masking rule for %s.%s.%s" % (database, table, rule["column_name"])
            if table not in tables:
                return "table %s does not exist in database %s (%s)" % (table, database, where)
            if "%s.%s" % (table, rule["column_name"]) not in columns:
                return "column %s does not exist in table %s of database %s (%s)" % (
                    rule["column_name"], table, database, where)
            try:
                value = expression(rule, {column.rsplit(".", 1)[1] for column in columns
                                          if column.rsplit(".", 1)[0] == table})
            except ValueError as problem:
                return "%s (%s)" % (problem, where)
            updates.setdefault((rule["schema_name"], rule["table_name"]), []).append(
                "%s = %s" % (identifier(rule["column_name"]), value))
        plans[database] = "BEGIN;\n" + "".join(
            "UPDATE %s.%s SET %s;\n" % (identifier(schema), identifier(table), ", ".join(sets))
            for (schema, table), sets in updates.items()) + "COMMIT;"
    for database, script in plans.items():
        try:
            real.run_sql(project_id, branch, database, SCHEMA_SQL, branches, now_us)
            real.run_sql(project_id, branch, database, script, branches, now_us)
        except (RuntimeError, ValueError) as failure:
            return "masking database %s failed: %s" % (database, _error(failure))
    return None
