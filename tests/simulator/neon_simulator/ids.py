# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Identifiers shaped like Neon's (project, branch, endpoint, org, keys)."""

from __future__ import annotations

import re
import secrets
import string
import uuid

ADJECTIVES = (
    "aged", "ancient", "autumn", "billowing", "bitter", "black", "blue", "bold", "broad", "broken",
    "calm", "cold", "cool", "crimson", "curly", "damp", "dark", "dawn", "delicate", "divine",
    "dry", "empty", "falling", "fancy", "flat", "floral", "fragrant", "frosty", "gentle", "green",
    "hidden", "holy", "icy", "jolly", "late", "lingering", "little", "lively", "long", "lucky",
    "misty", "morning", "muddy", "mute", "nameless", "noisy", "odd", "old", "orange", "patient",
    "plain", "polished", "proud", "purple", "quiet", "rapid", "raspy", "red", "restless", "rough",
    "round", "royal", "shiny", "shrill", "shy", "silent", "small", "snowy", "soft", "solitary",
    "sparkling", "spring", "square", "steep", "still", "summer", "super", "sweet", "throbbing", "tight",
    "tiny", "twilight", "wandering", "weathered", "white", "wild", "winter", "wispy", "withered", "young",
)
NOUNS = (
    "art", "band", "bar", "base", "bird", "block", "boat", "bonus", "bread", "breeze",
    "brook", "bush", "butterfly", "cake", "cell", "cherry", "cloud", "credit", "darkness", "dawn",
    "dew", "disk", "dream", "dust", "feather", "field", "fire", "firefly", "flower", "fog",
    "forest", "frog", "frost", "glade", "glitter", "grass", "hall", "hat", "haze", "heart",
    "hill", "king", "lab", "lake", "leaf", "limit", "math", "meadow", "mode", "moon",
    "morning", "mountain", "mouse", "mud", "night", "paper", "pine", "poetry", "pond", "queen",
    "rain", "recipe", "resonance", "rice", "river", "salad", "scene", "sea", "shadow", "shape",
    "silence", "sky", "smoke", "snow", "snowflake", "sound", "star", "sun", "sunset", "surf",
    "term", "thunder", "tooth", "tree", "truth", "union", "unit", "violet", "voice", "water",
)
_ALNUM = string.ascii_lowercase + string.digits
# org_id and project_id, as the API's OpenAPI document constrains them
ID_RE = re.compile(r"^[a-z0-9-]{1,60}$")


def _words(rng):
    return "%s-%s" % (rng.choice(ADJECTIVES), rng.choice(NOUNS))


def project_id(rng):
    """``shiny-river-12345678``."""
    return "%s-%08d" % (_words(rng), rng.randrange(10000000, 100000000))


def org_id(rng):
    """``org-quiet-meadow-12345678``."""
    return "org-" + project_id(rng)


def _suffixed(prefix, rng):
    return "%s-%s-%s" % (prefix, _words(rng), "".join(rng.choice(_ALNUM) for _position in range(8)))


def branch_id(rng):
    """``br-wispy-meadow-a5l2dqxb``."""
    return _suffixed("br", rng)


def endpoint_id(rng):
    """``ep-cool-darkness-123456ab``."""
    return _suffixed("ep", rng)


def seeded_uuid(rng):
    """A version 4 UUID string drawn from ``rng`` (deterministic per seed)."""
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def random_uuid():
    return str(uuid.uuid4())


def api_key_secret():
    """A fresh API key secret: 64 characters of ``[a-z0-9]``."""
    return "".join(secrets.choice(_ALNUM) for _position in range(64))
