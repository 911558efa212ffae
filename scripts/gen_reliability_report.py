#!/usr/bin/env python3
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write docs/docsite/rst/reliability.rst from the results of the reliability suite, or check it.

    python -m pytest tests/reliability          # records tests/output/reliability/results.json
    scripts/gen_reliability_report.py           # writes docs/docsite/rst/reliability.rst from it
    scripts/gen_reliability_report.py --check   # exit 1 (with a diff) when the page differs

The suite also checks the page itself in its last test (NEON_RELIABILITY_WRITE_DOC=1 rewrites it).
--results (or $NEON_RELIABILITY_RESULTS) reads another results file.
"""

import argparse
import difflib
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "reliability"))

import neon_reliability as rel  # noqa: E402
import reliability_report  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", default=os.environ.get(rel.RESULTS_ENV) or rel.DEFAULT_RESULTS)
    parser.add_argument("--output", default=rel.DOC_PATH)
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    try:
        with open(args.results, encoding="utf-8") as handle:
            results = json.load(handle)
    except (OSError, ValueError) as exc:
        sys.exit("gen_reliability_report.py: cannot read %s (%s): run python -m pytest tests/reliability first"
                 % (args.results, exc))
    try:
        text = reliability_report.render(results)
    except reliability_report.IncompleteResults as exc:
        sys.exit("gen_reliability_report.py: %s" % exc)
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as handle:
                current = handle.read()
        except OSError:
            current = ""
        if current != text:
            sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True),
                                                       args.output, "from " + args.results))
            print("gen_reliability_report.py: %s is out of date; run scripts/gen_reliability_report.py" % args.output)
            return 1
        print("%s matches %s" % (os.path.relpath(args.output, ROOT), os.path.relpath(args.results, ROOT)))
        return 0
    with open(args.output, "w", encoding="utf-8") as handle:
        handle.write(text)
    print("wrote %s" % os.path.relpath(args.output, ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main())
