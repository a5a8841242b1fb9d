"""A hand-answered OpenAI-compatible endpoint on 127.0.0.1: every request is written to a file and the reply is
whatever a person (or a model driving this session) writes back.

Why: to test the pipeline as a real user would, the real prompts must be answered by a careful reader who has
never seen the replay, not by transcripts we planted. Run it, point ``replaysage analyze`` at it, and answer::

    python tools/relay_model.py --dir /tmp/relay --port 8765 &
    replaysage analyze REPLAY --base-url http://127.0.0.1:8765/v1 --model-id relay --context-length 128000

For request ``NNN`` it writes ``NNN.request.json`` (the body as sent) and ``NNN.request.md`` (the messages, readable),
then waits for ``NNN.reply.md``. Write the reply to ``NNN.reply.tmp`` and rename it to ``NNN.reply.md`` (or write it in
one go): the file is taken once its size has not changed for two polls. While it waits, a streamed request gets an SSE
comment every few seconds so the client's read timeout does not fire. The reply is streamed back in small deltas
with ``finish_reason: stop`` and a usage chunk (prompt tokens estimated at 3 characters each).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

KEEPALIVE_S = 5.0
PIECE_CHARS = 120


class RelayState:
    """Where requests go and the counter that numbers them (shared by the handler threads)."""

    def __init__(self, folder: Path, poll_s: float) -> None:
        self.folder = folder
        self.poll_s = poll_s
        self._lock = threading.Lock()
        start = 1 + max((int(p.name[:3]) for p in folder.glob("[0-9][0-9][0-9].request.json")), default=0)
        self._numbers = itertools.count(start)

    def next_number(self) -> int:
        """The next request number (001, 002, ...; continues after files already in the folder)."""
        with self._lock:
            return next(self._numbers)


def render_messages(body: dict[str, Any]) -> str:
    """The conversation as Markdown a reader can follow: one section per message."""
    parts = [f"# request model={body.get('model')} max_tokens={body.get('max_tokens')} stream={body.get('stream')}"]
    for i, message in enumerate(body.get("messages", []), 1):
        parts.append(f"\n\n======== message {i}: {message.get('role')} ========\n\n{message.get('content', '')}")
    return "".join(parts)


def wait_for_reply(path: Path, poll_s: float, tick: Any) -> str:
    """Block until ``path`` exists with a stable size; call ``tick()`` now and then (for keep-alives)."""
    last_size = -1
    last_tick = time.monotonic()
    while True:
        if path.exists():
            size = path.stat().st_size
            if size == last_size and size > 0:
                return path.read_text(encoding="utf-8")
            last_size = size
        if time.monotonic() - last_tick >= KEEPALIVE_S:
            tick()
            last_tick = time.monotonic()
        time.sleep(poll_s)


class RelayHandler(BaseHTTPRequestHandler):
    """Chat completions answered from files; ``/models`` lists the one model."""

    state: RelayState
    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request files are the log."""

    def do_GET(self) -> None:
        """``GET /v1/models``."""
        payload = json.dumps({"object": "list", "data": [{"id": "relay", "object": "model"}]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_POST(self) -> None:
        """``POST /v1/chat/completions``: write the request, wait for the reply file, send it back."""
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        number = self.state.next_number()
        stem = self.state.folder / f"{number:03d}"
        stem.with_suffix(".request.json").write_text(json.dumps(body, ensure_ascii=False, indent=1), encoding="utf-8")
        stem.with_suffix(".request.md").write_text(render_messages(body), encoding="utf-8")
        reply_path = stem.with_suffix(".reply.md")
        print(f"request {number:03d} waiting for {reply_path}", flush=True)
        prompt_tokens = sum(len(m.get("content", "")) for m in body.get("messages", [])) // 3
        if body.get("stream", True):
            self._stream(reply_path, prompt_tokens)
        else:
            self._whole(reply_path, prompt_tokens)
        print(f"request {number:03d} answered", flush=True)

    def _stream(self, reply_path: Path, prompt_tokens: int) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()

        def send(data: str) -> None:
            self.wfile.write(data.encode("utf-8"))
            self.wfile.flush()

        text = wait_for_reply(reply_path, self.state.poll_s, lambda: send(": waiting for the reply file\n\n"))

        def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
            obj = {"id": "relay", "object": "chat.completion.chunk", "model": "relay",
                   "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip
            return f"data: {json.dumps(obj, ensure_ascii=False)}\n\n"

        send(chunk({"role": "assistant", "content": ""}))
        for i in range(0, len(text), PIECE_CHARS):
            send(chunk({"content": text[i : i + PIECE_CHARS]}))
        send(chunk({}, "stop"))
        usage = {"prompt_tokens": prompt_tokens, "completion_tokens": len(text) // 3,
                 "total_tokens": prompt_tokens + len(text) // 3}  # fmt: skip
        final = {"id": "relay", "object": "chat.completion.chunk", "choices": [], "usage": usage}
        send(f"data: {json.dumps(final)}\n\n")
        send("data: [DONE]\n\n")

    def _whole(self, reply_path: Path, prompt_tokens: int) -> None:
        text = wait_for_reply(reply_path, self.state.poll_s, lambda: None)
        obj = {"id": "relay", "object": "chat.completion", "model": "relay",
               "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
               "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": len(text) // 3}}  # fmt: skip
        payload = json.dumps(obj, ensure_ascii=False).encode("utf-8")
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dir", required=True, help="folder for NNN.request.* and NNN.reply.md files")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--poll", type=float, default=1.0, help="seconds between looks for a reply file")
    args = parser.parse_args()
    folder = Path(args.dir)
    folder.mkdir(parents=True, exist_ok=True)
    RelayHandler.state = RelayState(folder, args.poll)
    server = ThreadingHTTPServer(("127.0.0.1", args.port), RelayHandler)
    print(f"relay model at http://127.0.0.1:{server.server_address[1]}/v1 (folder {folder})", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
