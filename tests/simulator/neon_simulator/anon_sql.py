# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Masking for real (``--postgres``): an anonymized branch's rules applied by SQL to its data (anonymized.py).

Neon masks with the PostgreSQL Anonymizer extension (``anon``). The local Neon has no such extension: it installs an
``anon`` schema of plain SQL functions with the names and arguments of PostgreSQL Anonymizer's most used ones
(``FUNCTIONS``) in the branch's databases, and a run rewrites each rule's column with one ``UPDATE`` per table, all
of a database's in one transaction. Before anything is changed, a run checks that every rule's table and column
exist and that every ``anon.`` function its expressions name is one of ``FUNCTIONS``: otherwise, or when PostgreSQL
refuses a statement (a value of the wrong type for its column, a function outside ``anon``), the run ends in
``error`` with a message naming it, and that database's data is as it was (its transaction is not committed).

- Fakes (``fake_*``, ``dummy_*``, ``random_*``) are random, as in PostgreSQL Anonymizer; the fake emails are at
  ``example.com``/``.net``/``.org``.
- ``anon.hash(value)`` is deterministic (the same value, the same hash: a hex SHA-512, as PostgreSQL Anonymizer's
  default algorithm, without its secret salt), as are the ``pseudo_*`` functions of a seed.
- ``anon.partial(value, prefix, padding, suffix)`` and ``anon.partial_email(value)`` are PostgreSQL Anonymizer's.
- A ``masking_value`` that is an SQL literal (``'REDACTED'``, ``0``, ``NULL``, ``true``: the forms of Neon's guide)
  is set as such; any other text is set as a string.
"""

from __future__ import annotations

import re

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
                      "regexp_replace(ov, '.*\\.', '')"),
}
# "SELECT anon.x()" in a function's body needs x made first
ORDER = sorted(FUNCTIONS, key=lambda name: "anon." in FUNCTIONS[name][2])
SCHEMA_SQL = "CREATE SCHEMA IF NOT EXISTS anon;\nGRANT USAGE ON SCHEMA anon TO PUBLIC;\n" + "".join(
    "CREATE OR REPLACE FUNCTION anon.%s(%s) RETURNS %s LANGUAGE sql VOLATILE AS $anon$ %s $anon$;\n"
    % (name, FUNCTIONS[name][0], FUNCTIONS[name][1], FUNCTIONS[name][2]) for name in ORDER)
NAMED_RE = re.compile(r"\banon\s*\.\s*\"?([A-Za-z_][A-Za-z0-9_]*)")
LITERAL_RE = re.compile(r"^(?:'(?:[^']|'')*'|[+-]?\d+(?:\.\d+)?|NULL|TRUE|FALSE)$", re.IGNORECASE)


def _error(failure):
    """PostgreSQL's own words in psql's failure (``ERROR:  ...`` and no more), else the failure."""
    match = re.search(r"ERROR:\s+(.*)", str(failure))
    return match.group(1).strip() if match else str(failure)


def expression(rule):
    """The SQL a rule sets its column to; ValueError naming what the local Neon cannot do."""
    if "masking_value" in rule:
        value = rule["masking_value"]
        return value if LITERAL_RE.match(value.strip()) else literal(value)
    function = rule["masking_function"]
    if ";" in function:
        raise ValueError("masking function %s is not one SQL expression" % function)
    for name in NAMED_RE.findall(function):
        if name not in FUNCTIONS:
            raise ValueError("masking function anon.%s is not available in the local Neon: its anon schema has %s"
                             % (name, ", ".join("anon.%s()" % known for known in sorted(FUNCTIONS))))
    return function


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
                value = expression(rule)
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
