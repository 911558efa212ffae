# -*- coding: utf-8 -*-
# Copyright: (c) 2026, neon.cloud collection maintainers
# GNU General Public License v3.0+ (see https://www.gnu.org/licenses/gpl-3.0.txt)
"""The vendor's OpenAPI document (tests/simulator/openapi/neon-api-v2.json): its operations, and which one a
request names.

The application asks :func:`document` only for a request no served route matches (app.py): a documented
operation answers 501 ``NOT_SIMULATED``, a documented path with another method 405, anything else 404
(tests/simulator/README.md, "OpenAPI coverage"). The document is read once, at the first such request, so
starting the simulator costs nothing more. The conformance test (tests/test_openapi_conformance.py) reads
the same object for the operations and their response schemas.
"""

from __future__ import annotations

import json
import os
import threading

__all__ = ["DOCUMENT_PATHS", "Document", "Operation", "document"]

_HERE = os.path.dirname(os.path.abspath(__file__))
# where the document is: in the repository (tests/simulator/openapi/), or inside an installed package whose
# wheel carries it as neon_simulator/openapi/ (the first found is used)
DOCUMENT_PATHS = (os.path.join(os.path.dirname(_HERE), "openapi", "neon-api-v2.json"),
                  os.path.join(_HERE, "openapi", "neon-api-v2.json"))
METHODS = ("get", "put", "post", "patch", "delete")

_LOCK = threading.Lock()
_LOADED = {}


class Operation:
    """One operation of the document: ``GET /projects/{project_id}`` named ``getProject``."""

    __slots__ = ("operation_id", "method", "template", "spec")

    def __init__(self, operation_id, method, template, spec):
        self.operation_id = operation_id
        self.method = method  # upper case
        self.template = template  # e.g. "/projects/{project_id}", under /api/v2
        self.spec = spec  # the document's operation object

    def __repr__(self):
        return "%s (%s %s)" % (self.operation_id, self.method, self.template)


class _Template:
    """A path template split into segments: a literal, or None for a ``{parameter}``."""

    __slots__ = ("template", "segments", "operations")

    def __init__(self, template):
        self.template = template
        self.segments = tuple(None if part.startswith("{") and part.endswith("}") else part
                              for part in template.strip("/").split("/"))
        self.operations = {}  # method -> Operation

    def matches(self, parts):
        return len(parts) == len(self.segments) and all(
            part == segment if segment is not None else part != ""
            for part, segment in zip(parts, self.segments))

    def specificity(self):
        """Literal segments first, from the left: /projects/shared before /projects/{project_id}."""
        return tuple(segment is not None for segment in self.segments)


class Document:
    """The parsed document: ``data`` (the JSON), ``operations()``, ``match(method, path)``."""

    def __init__(self, data):
        self.data = data
        templates = []
        for template, item in data.get("paths", {}).items():
            entry = _Template(template)
            for method in METHODS:
                spec = item.get(method)
                if isinstance(spec, dict):
                    entry.operations[method.upper()] = Operation(spec.get("operationId", ""), method.upper(),
                                                                 template, spec)
            if entry.operations:
                templates.append(entry)
        self._operations = [op for entry in templates for op in entry.operations.values()]
        # the most specific template first, as a router picks /projects/shared over /projects/{project_id}
        self._templates = sorted(templates, key=lambda entry: entry.specificity(), reverse=True)

    def operations(self):
        """Every operation, in the document's order of paths and methods."""
        return list(self._operations)

    def match(self, method, path):
        """``(operation, None)`` for a documented operation; ``(None, methods)`` for a documented path that
        does not document ``method`` (the methods it does document); ``(None, None)`` for an undocumented path.
        ``path`` is under /api/v2 (``/projects/x``); HEAD is GET's."""
        method = "GET" if method.upper() == "HEAD" else method.upper()
        parts = path.strip("/").split("/")
        matching = [template for template in self._templates if template.matches(parts)]
        for template in matching:
            if method in template.operations:
                return template.operations[method], None
        if matching:
            return None, sorted(matching[0].operations)
        return None, None


def document(path=None):
    """The document at ``path`` (default: the first of DOCUMENT_PATHS that exists), read once; None when there
    is none (the simulator then answers 404 for every route it does not serve, as before it kept the document)."""
    if path is None:
        path = next((candidate for candidate in DOCUMENT_PATHS if os.path.isfile(candidate)), DOCUMENT_PATHS[0])
    with _LOCK:
        if path not in _LOADED:
            try:
                with open(path, encoding="utf-8") as handle:
                    _LOADED[path] = Document(json.load(handle))
            except FileNotFoundError:
                _LOADED[path] = None
        return _LOADED[path]
