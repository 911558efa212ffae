# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""ansible-galaxy: the built tarball is clean, installs, and its modules run from the install."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import sys
import tarfile

from neon_testing import ROOT, ansible_env, galaxy_meta, run, tool

# Nothing of a developer's machine may end up in the published tarball.
FORBIDDEN_PARTS = {".venv", ".venvs", ".build", "__pycache__", ".git", ".pytest_cache", ".hypothesis", ".ansible",
                   ".cache", ".tox", ".mypy_cache", ".ruff_cache", ".benchmarks"}
FORBIDDEN_PATHS = ("tests/output",)
FORBIDDEN_SUFFIXES = (".pyc", ".tar.gz", ".retry")
REQUIRED = ("MANIFEST.json", "FILES.json", "README.md", "meta/runtime.yml", "meta/execution-environment.yml",
            "requirements.txt", "plugins/modules/api_key.py", "plugins/module_utils/_api/client.py",
            "plugins/doc_fragments/api.py", "docs/docsite/extra-docs.yml", "docs/docsite/links.yml",
            "docs/docsite/rst/authentication.rst", "extensions/awx/credential_type.yml",
            # Event-Driven Ansible: the source, the rulebooks and the playbooks they run (ansible-rulebook finds
            # them in an installed collection by these paths)
            "extensions/eda/plugins/event_source/events.py", "extensions/eda/rulebooks/project_baseline.yml",
            "extensions/eda/rulebooks/failed_operations.yml", "extensions/eda/rulebooks/expiring_branches.yml",
            "playbooks/eda_project_baseline.yml", "playbooks/eda_operation_ticket.yml",
            "playbooks/eda_branch_expiring.yml")


def member_names(tarball):
    with tarfile.open(str(tarball)) as archive:
        return [member.name[2:] if member.name.startswith("./") else member.name for member in archive.getmembers()]


def test_tarball_has_no_development_files(collection_tarball):
    names = member_names(collection_tarball)
    bad = [name for name in names
           if FORBIDDEN_PARTS.intersection(name.split("/"))
           or any(name == path or name.startswith(path + "/") for path in FORBIDDEN_PATHS)
           or name.endswith(FORBIDDEN_SUFFIXES)]
    assert not bad, "development files in the collection tarball: %s" % bad[:20]
    missing = [name for name in REQUIRED if name not in names]
    assert not missing, "missing from the collection tarball: %s" % missing


def test_manifest_names_the_collection(collection_tarball):
    meta = galaxy_meta()
    with tarfile.open(str(collection_tarball)) as archive:
        manifest = json.load(archive.extractfile("MANIFEST.json"))
    info = manifest["collection_info"]
    assert (info["namespace"], info["name"], info["version"]) == (meta["namespace"], meta["name"], meta["version"])


# What each plugin manages, as galaxy.yml's description (Galaxy's summary of the collection) says it.
# A new module or plugin fails the test below until it is named here and in the description.
MANAGES = {
    "modules": {"api_key": "API keys", "api_key_info": "API keys", "auth_info": "API keys", "project": "projects",
                "projects_info": "projects", "branch": "branches", "branch_info": "branches", "endpoint": "computes",
                "role": "roles", "database": "databases", "connection_info": "connection strings",
                "operation_info": "operations", "operation_wait": "operations", "project_permission": "sharing",
                "organization_member": "organization members", "organization_member_info": "organization members",
                "vpc_endpoint": "private networking", "project_vpc_endpoint": "private networking",
                "vpc_endpoint_info": "private networking", "consumption_info": "consumption",
                "branch_restore": "restores", "snapshot": "snapshots", "snapshot_info": "snapshots",
                "snapshot_restore": "snapshots", "snapshot_schedule": "backup schedules",
                "branch_schema_info": "schema", "branch_recover": "recovering", "project_recover": "recovering",
                "neon_auth": "Neon Auth", "neon_auth_info": "Neon Auth", "neon_auth_oauth_provider": "Neon Auth",
                "neon_auth_user": "Neon Auth", "data_api": "Data API", "jwks": "JWKS",
                "branch_anonymized": "anonymized branches",
                "project_transfer": "moving projects", "project_member": "project roles",
                "organization_spending_limit": "spending limits", "advisor_info": "advisor issues"},
    "inventory": {"projects": "inventory"},
}


def test_the_description_names_what_every_module_and_plugin_manages(collection_tarball):
    with tarfile.open(str(collection_tarball)) as archive:
        description = json.load(archive.extractfile("MANIFEST.json"))["collection_info"]["description"]
    for kind, manages in MANAGES.items():
        plugins = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", kind))
                         if name.endswith(".py") and not name.startswith("_"))
        assert sorted(manages) == plugins, "plugins/%s has %s: name what each manages in MANAGES" % (kind, plugins)
        missing = sorted(set(word for word in manages.values() if word not in description))
        assert not missing, "galaxy.yml's description does not name %s: %r" % (", ".join(missing), description)


def test_installed_tarball_runs_against_the_simulator(collection_tarball, simulator, tmp_path):
    install_path = tmp_path / "collections"
    env = ansible_env(tmp_path)
    run([tool("ansible-galaxy"), "collection", "install", "--offline", "-p", install_path, collection_tarball],
        cwd=str(tmp_path), env=env)
    meta = galaxy_meta()
    installed = install_path / "ansible_collections" / meta["namespace"] / meta["name"]
    assert (installed / "MANIFEST.json").exists()

    # Only the installed copy is on the collections path.
    env = ansible_env(tmp_path, collections_path=install_path, NEON_API_KEY=simulator.api_key, NEON_API_URL=simulator.url)
    proc = run([tool("ansible"), "localhost", "-m", "%s.%s.projects_info" % (meta["namespace"], meta["name"]),
                "-e", "ansible_python_interpreter=%s" % sys.executable],
               cwd=str(tmp_path), env=env)
    # the default ad-hoc output: "localhost | SUCCESS => {...}"
    output = proc.stdout[proc.stdout.index("localhost | "):]
    status, payload = output.split(" => ", 1)
    assert status == "localhost | SUCCESS", output[:1000]
    result, _end = json.JSONDecoder().raw_decode(payload)
    assert not result.get("failed"), result
    assert result["changed"] is False
    projects = result["projects"]
    assert len(projects) > 10, "the module read only one page: %d projects" % len(projects)
    assert simulator.demo_project_id in [project["id"] for project in projects]
    assert simulator.api_key not in proc.stdout + proc.stderr
