# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a task refuses before anything is sent: ``OptionError`` (an option that cannot be used, whatever the service
holds), ``Refusal`` (a choice that cannot be made from what the service listed), ``Missing`` (what a task names that
does not exist yet, and the one rule of check mode for it, ``assume``), ``only_one`` (the one object of a name, two
of one name being a refusal that names both) and ``path_problem`` (an option that cannot go into a request's path).
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.module_utils._api.errors import TaskFailure


class OptionError(Exception):
    """An option of the module that cannot be used, whatever the service holds (a name the service refuses, a
    compute that is neither true, false nor its settings): the task fails with this sentence alone, before anything
    is read or sent (_module.py)."""


class Refusal(TaskFailure):
    """A choice that cannot be made from what the service listed; nothing was changed. ``error``: the
    API error that showed it (a 404 for a project that does not exist), kept in the result."""

    def __init__(self, msg, error=None):
        fields = {"error": error.to_dict()} if error is not None else {}
        super(Refusal, self).__init__(msg, cause=error, changed=False, **fields)


class Missing(Refusal):
    """What a task names that does not exist (yet): the project of its branch, a branch of the project, the role that
    is to own a database. Outside check mode a Refusal like any other, with the same words. In check mode it is
    taken as made by an earlier task of the play (``assume``): a module runs alone and cannot see the play, and a
    dry run of a new environment is the first thing users run. ``what`` names it (``branch 'dev' of project
    ...``); ``stand_in`` is the object as a task that makes it would predict it (what only the service gives it,
    its id, null)."""

    def __init__(self, msg, what, stand_in=None, error=None):
        super(Missing, self).__init__(msg, error)
        self.what = what
        self.stand_in = stand_in

    def assumption(self):
        """The warning that says what check mode assumed."""
        return "%s does not exist yet; in check mode it is taken as made by an earlier task of the play, and this " \
               "result is predicted on that assumption (run for real, the task fails unless an earlier one makes " \
               "it)." % (self.what[:1].upper() + self.what[1:])


def assume(missing, check_mode, warnings):
    """The rule of check mode for what a task names that does not exist (a Missing): in check mode, its stand-in,
    with a warning in ``warnings`` saying so (once); outside check mode, the Missing raised, as a refusal."""
    if not check_mode:
        raise missing
    warning = missing.assumption()
    if warning not in warnings:
        warnings.append(warning)
    return missing.stand_in


def only_one(candidates, kinds, name, where=""):
    """The one object of ``name`` among ``candidates``, None when there is none; two or more is a Refusal."""
    if len(candidates) > 1:
        raise Refusal("%d %s are named %r%s (ids %s); a name that does not identify one cannot be used, so nothing "
                      "was changed. Give the id of the one you mean." % (
                          len(candidates), kinds, name, where, ", ".join(str(item.get("id")) for item in candidates)))
    return candidates[0] if candidates else None


def path_problem(name, value):
    """Why the option ``name`` cannot go into a request's path, or None (None: not given): empty, or ``.`` or ``..``
    (either would make the request reach another endpoint, such as ``/projects//operations``)."""
    if value is None:
        return None
    if not value.strip():
        return "%s must not be empty" % name
    if value in (".", ".."):
        return "%s must not be %r: it would make the request reach another endpoint" % (name, value)
    return None


def first_problem(*problems):
    """The first of ``problems`` that is not None (each a sentence or None), checked in that order."""
    return next((problem for problem in problems if problem), None)
