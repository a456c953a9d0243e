"""A small HTTP server on 127.0.0.1 that answers the two OpenFGA API calls the access source
makes (``POST /stores/{id}/batch-check`` and ``/list-objects``) from relationship tuples.

No OpenFGA server binary can be installed here, so this stands in for one: the real
``openfga-sdk`` client builds, sends and parses the requests, over a real socket. The server
resolves direct tuples, usersets (``team:eng#member``) nested to any depth and one tuple-to-
userset hop (``document:d1#folder@folder:f`` grants what the folder grants); it can cap
ListObjects at ``max_results`` the way OpenFGA's ``listObjectsMaxResults`` does (silently),
and fail every call with a status code.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

STORE = "01ARZ3NDEKTSV4RRFFQ69G5FAV"
MODEL = "01ARZ3NDEKTSV4RRFFQ69G5FAW"


@dataclass
class Tuples:
    """Relationship tuples ``(object, relation, user)``, users possibly ``type:id#relation``."""

    rows: set[tuple[str, str, str]] = field(default_factory=set)
    max_results: int = 1000
    failing: int | None = None

    def add(self, text: str) -> None:
        """Add a tuple written ``object#relation@user``."""
        head, _, user = text.partition("@")
        obj, _, relation = head.partition("#")
        self.rows.add((obj, relation, user))

    def holds(self, user: str, relation: str, obj: str, depth: int = 0) -> bool:
        """Whether ``user`` has ``relation`` on ``obj`` (direct, userset, or via the folder)."""
        if depth > 8:
            return False
        for row_obj, row_relation, row_user in self.rows:
            if row_obj != obj:
                continue
            if row_relation == relation:
                if row_user == user:
                    return True
                if "#" in row_user:
                    group, _, group_relation = row_user.partition("#")
                    if self.holds(user, group_relation, group, depth + 1):
                        return True
            if row_relation == "folder" and self.holds(user, relation, row_user, depth + 1):
                return True
        return False


def serve(tuples: Tuples) -> tuple[ThreadingHTTPServer, str]:
    """Start the server on a free port; the server and its base URL."""

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # keep test output clean
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if tuples.failing is not None:
                self._send(tuples.failing, {"code": "internal_error", "message": "down"})
            elif self.path == f"/stores/{STORE}/batch-check":
                result = {
                    item["correlation_id"]: {
                        "allowed": tuples.holds(
                            item["tuple_key"]["user"],
                            item["tuple_key"]["relation"],
                            item["tuple_key"]["object"],
                        )
                    }
                    for item in body["checks"]
                }
                self._send(200, {"result": result})
            elif self.path == f"/stores/{STORE}/list-objects":
                objects = sorted(
                    {
                        obj
                        for obj, _, _ in tuples.rows
                        if obj.startswith(body["type"] + ":")
                        and tuples.holds(body["user"], body["relation"], obj)
                    }
                )
                self._send(200, {"objects": objects[: tuples.max_results]})
            else:
                self._send(404, {"code": "not_found", "message": self.path})

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
