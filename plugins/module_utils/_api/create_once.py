# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A create (a POST) sent at most once for each proof that it was not carried out: the rule every task keeps.

A create whose answer was lost (a network error, a gateway error, no answer in time) may have been
carried out. It is never repeated blindly: what it would have made is looked for again, and the
request repeated only when that proves it was not carried out, within the client's retries. API
keys (_keys/lifecycle.py) and every resource (_resources/task.py) use this one loop; what they look
for and the words of their messages are theirs.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError


def create_once(client, send, look_again, found, in_flight, not_created):
    """``send()``'s answer; after an answer that leaves open whether it was carried out, ``look_again(error)``.

    ``found(error, item)`` is returned when looking again finds what the create made; ``in_flight(error)``
    (no answer in time: the service may still carry it out, so it is not asked again) and
    ``not_created(error, attempts, elapsed)`` (the create proved not carried out, attempts spent or
    the fault not transient) are raised. Any other error of ``send`` is raised as it is.
    """
    started = client.clock()
    attempts = client.retries + 1
    for attempt in range(1, attempts + 1):
        try:
            return send()
        except NeonAPIError as error:
            if not error.ambiguous:
                raise
            item = look_again(error)
            if item is not None:
                return found(error, item)
            if error.in_flight:
                raise in_flight(error)
            if not error.retryable or attempt == attempts:
                raise not_created(error, attempt, client.clock() - started)
            # Looking again proved it was not carried out: asking again cannot create it twice.
    raise AssertionError("unreachable")  # pragma: no cover
