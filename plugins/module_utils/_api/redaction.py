# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Text from the service made safe to print, and secrets kept out of everything we print.

Whatever the service (or a proxy, or a hostile server) answers ends up in a task's message:
it is shown on one line, bounded, with control characters escaped so that it cannot move the
cursor, recolour a terminal or forge a log line. No piece of a secret the task holds (the key
it authenticates with, a key it created, a password it was given) is printed, even when the
service quotes one.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

try:
    from urllib.parse import quote
except ImportError:  # pragma: no cover - Python 2 is not supported, keeps the import sanity test quiet
    from urllib import quote  # type: ignore

# Service text shown in one message, at most (the service's own messages are one short sentence).
SERVICE_TEXT_MAX = 300
REDACTED = "<redacted>"
# A run of this many characters of a secret is a piece of it. Keys are 64 random characters of
# [a-z0-9] (docs/docsite/rst/api-behaviour.rst), so six of them in ordinary text by chance is about one in 10^8.
SECRET_PIECE = 6
# A secret shorter than this (a test key such as "dev-key" or "revoked-or-wrong") is redacted
# only whole: its pieces are ordinary words, and hiding them would garble our own sentences.
SECRET_PIECES_FROM = 20
# Shorter still, a "secret" cannot be told apart from ordinary text at all.
SECRET_MIN = 4

_WHITESPACE = re.compile(r"\s+")
# C0 and C1 control characters, DEL, and the invisible Unicode formatting characters that can
# reorder or hide text on a terminal (bidi overrides, zero-width characters, BOM).
_UNPRINTABLE = re.compile(u"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")

# Secrets we do not know but can recognise: the new key's secret in a (cut) POST answer, a
# Bearer token that a proxy's error page echoes, and a password in an answer quoted before it
# was read (a cut GET /connection_uri or project create answer): a role's ``password`` field and
# the password of a postgres:// URI (up to its ``@``, or to where the text was cut).
_SECRET_SHAPES = (
    (re.compile(r"""(["'](?:key|password)["']\s*:\s*["']?)[^"',}\s]*"""), r"\1" + REDACTED),
    (re.compile(r"""(Bearer\s+)[^\s"'<>,;]+""", re.IGNORECASE), r"\1" + REDACTED),
    (re.compile(r"""(postgres(?:ql)?://[^:/@\s"'<>]*:)[^@\s"'<>]*""", re.IGNORECASE), r"\1" + REDACTED),
)


def _escape(match):
    char = match.group(0)
    code = ord(char)
    return "\\x%02x" % code if code < 0x100 else "\\u%04x" % code


def one_line(text, limit=SERVICE_TEXT_MAX):
    """``text`` on one line: whitespace runs become one space, control characters are escaped,
    and at most ``limit`` characters are kept (``...`` marks a cut)."""
    if not isinstance(text, str):
        text = str(text)
    text = _WHITESPACE.sub(" ", text[:limit * 4]).strip()
    text = _UNPRINTABLE.sub(_escape, text)
    if len(text) > limit:
        return text[:limit] + "..."
    return text


class SecretScrubber:
    """Removes every piece of the secrets it knows (and secret-shaped values) from text.

    A piece is any run of SECRET_PIECE characters of a secret, as written raw, JSON-escaped,
    Python-escaped or percent-encoded, so that a message quoting a part of a key, or a key with
    quotes or backslashes in it, gives nothing away either.
    """

    def __init__(self, secrets=()):
        self._pieces = set()
        self._pattern = None
        self._any = None
        for secret in secrets:
            self.add(secret)

    def add(self, secret, pieces=True):
        """``secret`` hidden from now on, in every form; ``pieces`` False: only whole, never a run of it (for a text
        whose runs are ordinary names, a masking function naming its column)."""
        if not isinstance(secret, str) or len(secret) < SECRET_MIN:
            return
        for form in set([secret, json.dumps(secret)[1:-1], repr(secret)[1:-1], quote(secret, safe="")]):
            size = SECRET_PIECE if pieces and len(secret) >= SECRET_PIECES_FROM else len(form)
            for start in range(len(form) - size + 1):
                self._pieces.add(form[start:start + size])
        alternatives = "|".join(re.escape(piece) for piece in sorted(self._pieces))
        self._any = re.compile(alternatives)
        # A lookahead finds every piece, overlapping ones too, so a whole secret is covered to its end.
        self._pattern = re.compile("(?=(%s))" % alternatives)

    def found_in(self, text):
        """Whether ``text`` holds a piece of a known secret (a quick test, no secret-shaped values)."""
        return self._any is not None and self._any.search(text) is not None

    def scrub(self, text):
        if not isinstance(text, str):
            return text
        for pattern, replacement in _SECRET_SHAPES:
            text = pattern.sub(replacement, text)
        if not self.found_in(text):
            return text
        hidden = [False] * len(text)
        for match in self._pattern.finditer(text):
            for index in range(match.start(), match.start() + len(match.group(1))):
                hidden[index] = True
        out = []
        index = 0
        while index < len(text):
            if hidden[index]:
                out.append(REDACTED)
                while index < len(text) and hidden[index]:
                    index += 1
            else:
                out.append(text[index])
                index += 1
        return "".join(out)

    def scrub_data(self, value):
        """``value`` (strings, lists, dicts) with every string scrubbed; dict keys too."""
        if isinstance(value, str):
            return self.scrub(value)
        if isinstance(value, dict):
            return dict((self.scrub(key), self.scrub_data(item)) for key, item in value.items())
        if isinstance(value, (list, tuple)):
            return [self.scrub_data(item) for item in value]
        return value
