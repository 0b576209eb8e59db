"""A minimal Language Server Protocol client over stdio (JSON-RPC with Content-Length framing),
enough to open a document in yaml-language-server and ask for diagnostics and completion."""
from __future__ import annotations

import json
import queue
import subprocess
import threading
import time
from typing import Any


class LspClient:
    """Talks to one server process; answers the server's configuration requests."""

    def __init__(self, command: list[str], settings: dict[str, Any]) -> None:
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL)
        self.settings = settings
        self.messages: queue.Queue[dict[str, Any]] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stream = self.process.stdout
        assert stream is not None
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                if line in (b"\r\n", b"\n"):
                    break
                name, _, value = line.decode("ascii").partition(":")
                if name.lower() == "content-length":
                    length = int(value)
            if length is None:
                continue
            self.messages.put(json.loads(stream.read(length)))

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def request(self, method: str, params: Any, timeout: float = 30) -> Any:
        self.next_id += 1
        wanted = self.next_id
        self.send({"id": wanted, "method": method, "params": params})
        reply = self.wait(lambda m: m.get("id") == wanted and "method" not in m, timeout)
        return reply.get("result")

    def wait(self, match: Any, timeout: float = 30) -> dict[str, Any]:
        """The next message ``match`` accepts (answering server requests on the way)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message from the language server")
            try:
                message = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if "method" in message and "id" in message:  # a request from the server
                self._answer(message)
                continue
            if match(message):
                return message

    def _answer(self, message: dict[str, Any]) -> None:
        if message["method"] == "workspace/configuration":
            items = message["params"].get("items", [])
            result: Any = [self.settings.get(item.get("section", ""), None) for item in items]
        else:
            result = None
        self.send({"id": message["id"], "result": result})

    def close(self) -> None:
        try:
            self.request("shutdown", None, timeout=5)
            self.notify("exit", None)
        except (OSError, TimeoutError, ValueError):
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
