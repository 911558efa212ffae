# -*- coding: utf-8 -*-
# Copyright: (c) 2025, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Command line: ``neon-simulator --port 0`` (installed: ``pip install ./tests/simulator``), or from a clone
``PYTHONPATH=tests/simulator python3 -m neon_simulator --port 0``."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import threading

from .launcher import is_loopback
from .scene_file import SceneError, load_scene
from .server import Simulator

ENV_API_KEY = "NEON_SIMULATOR_API_KEY"


def _program():
    """How the user started it: the console script, or ``python3 -m neon_simulator``."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python3 -m neon_simulator" if name in ("", "__main__.py", "-c", "-m") else name


def _parser():
    parser = argparse.ArgumentParser(prog=_program(),
                                     description="Local simulator of Neon's control-plane HTTP API v2.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="port to listen on (default 0: any free port)")
    parser.add_argument("--api-key", help="bootstrap API key (default: $%s, else a generated one)" % ENV_API_KEY)
    parser.add_argument("--seed", type=int, default=1, help="seed of the generated data (default 1)")
    parser.add_argument("--url-file", help="write the API URL to this file once listening (atomically)")
    parser.add_argument("--rate-limit", type=float, default=None,
                        help="answer 429 past N requests per second per route (default: off)")
    parser.add_argument("--org-key-rate-limit", type=float, default=10.0,
                        help="answer 429 past N organization-key creations per second per organization "
                             "(default 10, as the live service; 0: off)")
    parser.add_argument("--operation-pace", type=float, default=1.0,
                        help="scale how long the operations API calls start take (default 1: 1-2 s each)")
    parser.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host")
    parser.add_argument("--log-requests", action="store_true", help="log every request on stderr")
    parser.add_argument("--only-bootstrap-key", action="store_true",
                        help="seed no API key besides the bootstrap one")
    parser.add_argument("--postgres", action="store_true",
                        help="computes that are real PostgreSQL servers on 127.0.0.1 (needs the PostgreSQL programs: "
                             "pip install 'neon-simulator[postgres]', or --postgres-bin)")
    parser.add_argument("--postgres-bin", metavar="DIR",
                        help="the folder of the PostgreSQL programs for --postgres (default: $NEON_SIMULATOR_PG_BIN, "
                             "the pgserver package, pg_config --bindir, /usr/lib/postgresql/N/bin)")
    parser.add_argument("--postgres-workdir", metavar="DIR",
                        help="where --postgres keeps the data of its servers, in a new folder (default: "
                             "$NEON_SIMULATOR_PG_WORKDIR, the temporary folder; run as root, the first of it, /tmp "
                             "and /var/tmp that user nobody, who runs PostgreSQL then, can reach)")
    parser.add_argument("--scene", metavar="FILE",
                        help="set this scene at start, on top of the seeded data: users, organizations, projects "
                             "with their branches, API keys (JSON; YAML with PyYAML installed)")
    return parser


def _write_atomically(path, text):
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".neon-simulator-", dir=directory)
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def main(argv=None):
    args = _parser().parse_args(argv)
    if not args.allow_remote and not is_loopback(args.host):
        print("refusing to listen on non-loopback host %s (use --allow-remote)" % args.host, file=sys.stderr)
        return 2
    if args.rate_limit is not None and args.rate_limit <= 0:
        print("--rate-limit must be positive", file=sys.stderr)
        return 2
    if args.operation_pace <= 0:
        print("--operation-pace must be positive", file=sys.stderr)
        return 2
    if args.org_key_rate_limit < 0:
        print("--org-key-rate-limit must be 0 (off) or positive", file=sys.stderr)
        return 2
    api_key = args.api_key or os.environ.get(ENV_API_KEY) or None
    try:
        simulator = Simulator(api_key=api_key, seed=args.seed, host=args.host, port=args.port,
                              rate_limit=args.rate_limit, allow_remote=args.allow_remote,
                              log_requests=args.log_requests, extra_keys=not args.only_bootstrap_key,
                              org_key_rate_limit=args.org_key_rate_limit or None,
                              operation_pace=args.operation_pace, postgres=args.postgres,
                              postgres_bin=args.postgres_bin, postgres_workdir=args.postgres_workdir)
    except RuntimeError as error:  # pg_binaries.PostgresUnavailable, without importing it when not asked for
        if not (args.postgres or args.postgres_bin or args.postgres_workdir):
            raise
        print("--postgres: %s" % error, file=sys.stderr)
        return 2
    if args.scene:
        try:
            load_scene(simulator, args.scene)
        except SceneError as error:
            print("--scene: %s" % error, file=sys.stderr)
            simulator.stop()  # real computes' data go
            return 2
    stopping = threading.Event()

    def _stop(_signum, _frame):
        stopping.set()

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    try:
        url = simulator.start()
        if api_key is None:
            print("NEON_API_KEY=%s" % simulator.api_key, flush=True)
        print("NEON_API_URL=%s" % url, flush=True)
        print("NEON_SIM_DEMO_PROJECT=%s" % simulator.demo_project_id, flush=True)
        print("NEON_SIM_CONTROL_URL=%s" % simulator.control_url, flush=True)
        if simulator.state.real is not None:  # psql is there too
            print("NEON_SIM_PG_BIN=%s" % simulator.state.real.bin_folder, flush=True)
            print("NEON_SIM_PG_WORKDIR=%s" % simulator.state.real.workdir, flush=True)  # a launcher's clean-up
        print("NEON_SIM_ORG_ID=%s" % simulator.org_id, flush=True)  # the last line
        if args.url_file:
            _write_atomically(args.url_file, url + "\n")
        while not stopping.wait(0.5):
            pass
    finally:
        simulator.stop()
        if args.url_file and os.path.exists(args.url_file):
            os.unlink(args.url_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
