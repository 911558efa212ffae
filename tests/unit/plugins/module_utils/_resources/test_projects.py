# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions about a project (_resources/projects.py's PROJECT and plan.py's decide), without HTTP: what is
created, updated or refused."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import pytest

from ansible_collections.neon.cloud.plugins.module_utils._resources.plan import (
    CREATE,
    NOTHING,
    REFUSE,
    UPDATE,
    decide,
)
from ansible_collections.neon.cloud.plugins.module_utils._resources.projects import PROJECT
from ansible_collections.neon.cloud.plugins.module_utils._resources.refusal import Refusal, only_one

PROJECT_NOW = {"id": "p-1", "name": "shop", "region_id": "aws-eu-central-1", "pg_version": 17, "org_id": None,
               "history_retention_seconds": 86400,
               "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.25, "autoscaling_limit_max_cu": 1,
                                             "suspend_timeout_seconds": 0}}


def project_options(**given):
    options = dict.fromkeys(("name", "org_id", "region_id", "pg_version", "history_retention_seconds", "compute",
                             "default_branch", "database", "role"))
    options.update(given)
    return options


def test_absent_project_is_created_with_compute_settings_under_their_api_names():
    plan = decide(PROJECT, None, project_options(name="shop", region_id="aws-eu-central-1",
                                                 compute={"min_cu": 0.5, "max_cu": 2, "suspend_timeout_seconds": None},
                                                 default_branch="production", role="app"))
    assert plan.action == CREATE
    assert plan.body == {"name": "shop", "region_id": "aws-eu-central-1",
                         "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.5, "autoscaling_limit_max_cu": 2},
                         "branch": {"name": "production", "role_name": "app"}}


def test_project_as_asked_is_left_alone_even_when_creation_names_differ():
    plan = decide(PROJECT, PROJECT_NOW, project_options(name="shop", region_id="aws-eu-central-1", pg_version=17,
                                                        compute={"max_cu": 1.0}, default_branch="other", database="x"))
    assert plan.action == NOTHING
    assert not plan.changed


def test_updatable_project_fields_are_updated_and_only_those():
    plan = decide(PROJECT, PROJECT_NOW, project_options(name="shop", history_retention_seconds=3600,
                                                        compute={"min_cu": 0.5}))
    assert plan.action == UPDATE
    assert plan.body == {"history_retention_seconds": 3600,
                         "default_endpoint_settings": {"autoscaling_limit_min_cu": 0.5}}
    assert plan.changes == {"history_retention_seconds": (86400, 3600), "compute.min_cu": (0.25, 0.5)}


@pytest.mark.parametrize("option, value, shown", [
    ("region_id", "aws-us-east-2", "region_id is 'aws-eu-central-1', not 'aws-us-east-2'"),
    ("pg_version", 16, "pg_version is 17, not 16"),
    ("org_id", "org-a", "org_id is unset, not 'org-a'"),
])
def test_create_only_project_field_that_differs_is_refused_and_changes_nothing(option, value, shown):
    plan = decide(PROJECT, PROJECT_NOW, project_options(name="renamed", **{option: value}))
    assert plan.action == REFUSE
    assert not plan.changed
    assert shown in plan.reason
    assert "can only be set when it is created" in plan.reason
    assert plan.body == {}  # the rename is not carried out beside a refusal


def test_two_projects_of_one_name_are_refused_naming_both_ids():
    with pytest.raises(Refusal) as caught:
        only_one([{"id": "p-1", "name": "shop"}, {"id": "p-2", "name": "shop"}], "projects", "shop")
    assert "p-1" in caught.value.msg and "p-2" in caught.value.msg
    assert caught.value.result == {"changed": False}
