# -*- coding: utf-8 -*-
# Copyright (c) neon.cloud contributors
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/docsite/rst/reliability.rst must be what this run's results give (runs last, or alone after the
suite ran in pytest-xdist workers; skipped on a partial run)."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import difflib
import io
import json
import os

import pytest

import neon_reliability as rel
import reliability_report


@pytest.mark.report
def test_docs_reliability_rst_matches_this_run(results):
    if not any(results.values()) and os.path.exists(rel.results_path()):
        # run alone, after the suite ran in pytest-xdist workers (nox -s pytest): their merged results
        with io.open(rel.results_path(), encoding="utf-8") as handle:
            results = json.load(handle)
    try:
        text = reliability_report.render(results)
    except reliability_report.IncompleteResults as exc:
        pytest.skip("not the whole suite: %s" % exc)
    if not results["bad_input"] or not results["secrets"] or not results["other"]:
        pytest.skip("not the whole suite: some test files did not run")
    if os.environ.get("NEON_RELIABILITY_WRITE_DOC") == "1":
        with io.open(rel.DOC_PATH, "w", encoding="utf-8") as handle:
            handle.write(text)
    with io.open(rel.DOC_PATH, encoding="utf-8") as handle:
        committed = handle.read()
    page = os.path.relpath(rel.DOC_PATH, rel.ROOT)
    diff = "".join(difflib.unified_diff(committed.splitlines(True), text.splitlines(True), page, "this run"))
    assert not diff, ("%s does not match this run; if the change is intended, rerun with "
                      "NEON_RELIABILITY_WRITE_DOC=1 (or scripts/gen_reliability_report.py) and commit it:\n%s" % (page, diff))
