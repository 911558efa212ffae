# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""neon.cloud.organization_spending_limit runs in the controller's process when its task runs on the controller, and is shipped
otherwise: plugins/plugin_utils/in_controller.py. Its documentation is the module's (plugins/modules/organization_spending_limit.py)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.neon.cloud.plugins.plugin_utils.in_controller import InControllerAction

# Imported with this file, which ansible-core loads before it forks the task's workers: they find it ready.
from ansible_collections.neon.cloud.plugins.modules import organization_spending_limit as module  # noqa: F401  pylint: disable=unused-import


class ActionModule(InControllerAction):
    pass
