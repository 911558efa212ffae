# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Finding what a task names: its project, the project's branches, a branch by name or id or the default one.

Every resource of a project starts here (a branch's parent, a compute's, role's, database's or snapshot's branch),
so these reads and the rules of which branch a name means are below the resource files; what each resource reads
of its own (a branch's computes, its roles and databases) is in its own file. Every read is checked
(_api/answers.py) before anything in it is used. A project that does not
exist (or that the key does not reach) is a Refusal that says so, from the first read of every
task on a project's branches.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib
import re

from ansible_collections.neon.cloud.plugins.module_utils._api import answers
from ansible_collections.neon.cloud.plugins.module_utils._api.client import project_path
from ansible_collections.neon.cloud.plugins.module_utils._api.errors import NeonAPIError
from ansible_collections.neon.cloud.plugins.module_utils._api.paging import collect
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Missing, Refusal, only_one

# GET /projects/{id}/branches: limit 1-10000 (docs/docsite/rst/api-behaviour.rst); the largest page
# keeps a project's listing to one request for every plan's branch limit.
BRANCHES_PAGE_MAX = 10000
# The shape of the ids the service gives branches (``br-wispy-meadow-a5l2dqxb``): no task of a play can make a branch
# of a given id, so in check mode a missing one is refused, not taken as made by an earlier task (refusal.Missing).
SERVICE_BRANCH_ID = re.compile(r"^br-[a-z]+-[a-z]+-[a-z0-9]{6,8}$")
# What the collection reads of every listed branch (docs/docsite/rst/api-behaviour.rst): the fields a decision
# compares and the ids it follows; branches.py reads more of the branch a task makes (BRANCH_ANSWER_FIELDS).
_TEXT_OR_NULL = (str, type(None))
BRANCH_FIELDS = dict(
    required={"id": (str,), "name": (str,)},
    optional={"project_id": (str,), "parent_id": _TEXT_OR_NULL, "parent_lsn": _TEXT_OR_NULL,
              "parent_timestamp": _TEXT_OR_NULL, "default": (bool,), "primary": (bool,), "protected": (bool,),
              "expires_at": _TEXT_OR_NULL, "current_state": (str,)},
)


def list_branches(client, project_id, search=None):
    """Every branch of the project (every page), each checked. A Refusal when the project does not
    exist (or the key does not reach it): the first request of every task on a project's branches."""
    with reaching_project(project_id):
        return collect(client, project_path(project_id, "branches"), "branches", BRANCHES_PAGE_MAX,
                       params={"search": search}, want_cursor=False, item_fields=BRANCH_FIELDS).items


def read_project_list(client, project_id, segment, key, item_fields):
    """One GET of a project's collection that is not paged (``/projects/{id}/<segment>``: its grants, its
    snapshots), each item checked for ``item_fields``. A Refusal when the project does not exist."""
    path = project_path(project_id, segment)
    with reaching_project(project_id):
        data = client.get(path)
    return answers.items_of(data, "GET", path, key, item_fields)


@contextlib.contextmanager
def reaching_project(project_id):
    """A request's HTTP 404 for ``project_id``'s first read turned into the Refusal that names the project."""
    try:
        yield
    except NeonAPIError as error:
        if error.status == 404:
            raise Refusal(no_such_project(project_id, error), error)
        raise


def no_such_project(project_id, error):
    """The sentence for a project id that the service does not know (HTTP 404)."""
    said = ": %s" % error.api_message if error.api_message else ""
    return "there is no project %s that this API key reaches (HTTP 404%s%s); check project_id, or list the key's " \
        "projects with neon.cloud.projects_info" % (project_id, said,
                                                    ", request id %s" % error.request_id if error.request_id else "")


def choose_branch(branches, wanted, project_id, option=None):
    """The branch ``wanted`` (an id, else a name) among ``branches``, the project's: every find of "a branch by
    name or id, or refuse". Two of one name are refusal.only_one's Refusal (find_branch); none is a
    Refusal naming ``option`` (the option that named it: ``parent``, ``source_branch``...; None: the task's branch)."""
    chosen = find_branch(branches, wanted)
    if chosen is None:
        msg = ("project %s has no branch %r" % (project_id, wanted) if option is None else
               "%s %r is neither the name nor the id of a branch of project %s" % (option, wanted, project_id))
        if SERVICE_BRANCH_ID.match(str(wanted)):  # an id the service gave: no earlier task of the play makes it
            raise Refusal(msg)
        raise Missing(msg, "branch %r of project %s" % (wanted, project_id), branch_stand_in(wanted))
    return chosen


def branch_stand_in(wanted):
    """A branch an earlier task of the play would make (check mode, refusal.Missing): named as asked, no id yet."""
    return {"id": None, "name": wanted, "parent_id": None}


def project_not_made(project_id):
    """A Missing for a null or empty ``project_id``, None for any other: in check mode, neon.cloud.project predicts
    a project it would make with a null id, which a later task gets as null or empty (refusal.Missing)."""
    if project_id is not None and project_id.strip():
        return None
    return Missing("project_id is empty", "the task's project (project_id is empty: a project predicted in check "
                                          "mode has no id yet)")


def project_to_be_made(project_id, task):
    """Whether ``project_id`` is that of a project an earlier task of the play would make (project_not_made), in
    check mode: then nothing of it is read, and a warning says so (refusal.assume). False outside check mode."""
    missing = project_not_made(project_id) if task.check_mode else None
    if missing is not None:
        task.assume(missing)
    return missing is not None


def branch_named(task, project_id, wanted):
    """The branch ``wanted`` (a name or an id; None: the default branch) of the task's project: one request.
    In check mode, a branch or a project that an earlier task of the play would make is taken as made (the rule
    of refusal.Missing, with a warning): a stand-in without an id, of which nothing is read."""
    if project_to_be_made(project_id, task):
        return branch_stand_in(wanted)
    try:
        return locate_branch(task.client, project_id, wanted)
    except Missing as missing:
        return task.assume(missing)


def locate_branch(client, project_id, wanted=None):
    """The branch ``wanted`` (a name or an id) of the project, or its default branch when None: one
    request. A Refusal when there is no such branch."""
    branches = list_branches(client, project_id)
    if wanted is not None:
        return choose_branch(branches, wanted, project_id)
    chosen = default_branch(branches)
    if chosen is None:
        raise Refusal("project %s lists no default branch" % project_id)
    return chosen


def find_branch(branches, wanted):
    """The branch whose id is ``wanted``, else the one named ``wanted``; None when neither exists.

    An id is looked for first: ids are unique and start with ``br-``; names are unique within a
    project too (docs/docsite/rst/api-behaviour.rst), but a listing that shows two is refused.
    """
    by_id = [branch for branch in branches if branch["id"] == wanted]
    if by_id:
        return by_id[0]
    return only_one([branch for branch in branches if branch["name"] == wanted], "branches", wanted)


def default_branch(branches):
    """The project's default branch (``default``, or the deprecated ``primary`` of older answers)."""
    marked = [branch for branch in branches if branch.get("default") is True]
    if not marked:
        marked = [branch for branch in branches if branch.get("primary") is True]
    if len(marked) > 1:
        raise Refusal("the service lists %d default branches (%s); cannot tell which one is meant" % (
            len(marked), ", ".join(branch["id"] for branch in marked)))
    return marked[0] if marked else None


def branch_label(branch):
    """A branch's name and id; one not made yet (check mode's stand-in: branch_stand_in) has no id."""
    return "%r (%s)" % (branch["name"], branch["id"] or "not made yet")
