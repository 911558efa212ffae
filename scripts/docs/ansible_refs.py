# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Sphinx extension for building our documentation site offline (noxfile.py, docs session).

The pages antsibull-docs generates refer to two labels of Ansible's own documentation, and (on the
inventory plugin's page) to Ansible's own ANSIBLE_* environment variables, which Sphinx resolves
through intersphinx, which needs the network. This links exactly those to their pages on
docs.ansible.com; every other unresolved reference still warns, so the build (warnings are
errors) still fails on a broken link of ours.
"""

from docutils import nodes

ANSIBLE_DOCS = "https://docs.ansible.com/projects/ansible/devel/"
# label -> its page below ANSIBLE_DOCS
ANSIBLE_LABELS = {
    # "Common return values are documented here", on every module page
    "common_return_values": "reference_appendices/common_return_values.html#common-return-values",
    # the environment variables page of the collection
    "ansible_configuration_settings": "reference_appendices/config.html#ansible-configuration-settings",
    # "This module has a corresponding action plugin", on every module page (plugins/action/: performance.rst,
    # "Two ways to run a module")
    "action_plugins": "plugins/action.html#action-plugins",
}


# Ansible's own configuration variables (ANSIBLE_CACHE_PLUGIN, ... of the inventory cache options)
ANSIBLE_ENVVAR_PAGE = "reference_appendices/config.html#envvar-"


def link_ansible_label(app, env, node, contnode):
    """``missing-reference`` handler: a reference node for one of ANSIBLE_LABELS or an ANSIBLE_
    environment variable, else None."""
    if node.get("refdomain") != "std" or node.get("reftype") not in ("ref", "envvar"):
        return None
    target = node.get("reftarget") or ""
    if node.get("reftype") == "envvar":
        page = ANSIBLE_ENVVAR_PAGE + target if target.startswith("ANSIBLE_") else None
    else:
        page = ANSIBLE_LABELS.get(target)
    if page is None:
        return None
    reference = nodes.reference("", "", internal=False, refuri=ANSIBLE_DOCS + page)
    reference.append(contnode)
    return reference


def setup(app):
    app.connect("missing-reference", link_ansible_label)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
