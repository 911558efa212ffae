# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A task's result, alike for every task that changes something (api_key's and the resources').

Warnings go in the result as a list (_module.py shows them as Ansible warnings, scrubbed of
secrets), and the diff only when Ansible asks for one. Nothing here calls Ansible.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type


def task_result(result, warnings=(), diff=False, before=None, after=None):
    """``result`` with its ``warnings`` (when there are any) and, when ``diff`` is asked, ``before`` and
    ``after`` as its diff (never a secret: what the caller shows of an object)."""
    if warnings:
        result["warnings"] = list(warnings)
    if diff:
        result["diff"] = dict(before=before, after=after)
    return result
