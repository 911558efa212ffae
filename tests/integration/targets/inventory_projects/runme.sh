#!/usr/bin/env bash
# The inventory plugin neon.cloud.projects through ansible-inventory and a play over its hosts,
# against the simulator the integration-X.Y sessions of noxfile.py start. checks.py holds the
# scenarios; the simulator's URL and key come from ../../integration_config.yml.
# No `set -x`: the command lines would show keys.
set -euo pipefail
exec python checks.py ../../integration_config.yml
