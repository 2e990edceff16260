#!/usr/bin/env python3
"""A protocol v1 process extension in Python's standard library only: one `echo` tool.

Frames are LF-delimited JSON on stdin/stdout (docs/protocol-v1.md). stdin is
read as bytes and split on b"\n" only: text-mode line iteration would also
split on U+2028 and friends, which JSON strings may contain raw.
"""
import json
import os
import sys

MAX_FRAME_BYTES = 1024 * 1024
MANIFEST = {"id": "python-echo", "name": "Python echo", "version": "0.1.0", "capabilities": ["tools"]}
ECHO_TOOL = {
    "name": "echo",
    "label": "Echo",
    "description": "Echoes its text back (from a Python process extension).",
    "parameters": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]},
    "capability": "read",
}


def send(frame):
    data = json.dumps(frame, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if len(data) > MAX_FRAME_BYTES:
        raise ValueError(f"frame of {len(data)} bytes exceeds {MAX_FRAME_BYTES}")
    sys.stdout.buffer.write(data + b"\n")
    sys.stdout.buffer.flush()


def respond(request_id, value=None, error=None):
    if error is None:
        result = {"status": "success", "value": value}
    else:
        result = {"status": "failure", "error": {"code": error[0], "message": error[1]}}
    send({"type": "response", "id": request_id, "result": result})


def invoke(request_id, invocation):
    if invocation.get("kind") == "tool" and invocation.get("name") == "echo":
        text = (invocation.get("arguments") or {}).get("text", "")
        respond(request_id, {"content": [{"type": "text", "text": f"echo: {text}"}], "details": None})
    elif invocation.get("kind") == "event":
        respond(request_id, None)
    else:
        respond(request_id, error=("unsupported_request", f"python-echo does not serve {invocation.get('kind')}"))


def handle(frame):
    kind = frame.get("type")
    if kind == "hello":
        send({"type": "hello", "protocolVersion": 1, "manifest": MANIFEST})
    elif kind == "request":
        request = frame["request"]
        if request["kind"] == "load":
            send({"type": "register", "registration": {"kind": "tool", "tool": ECHO_TOOL}})
            respond(frame["id"])
        elif request["kind"] == "initialize":
            respond(frame["id"])
        elif request["kind"] == "invoke":
            invoke(frame["id"], request["invocation"])
        else:
            respond(frame["id"], error=("unsupported_request", f"unknown request {request['kind']}"))
    elif kind == "cancel":
        # The tool answers synchronously, so nothing is ever still running when a cancel arrives.
        pass
    elif kind == "shutdown":
        sys.exit(0)


def main():
    pending = b""
    while True:
        chunk = os.read(0, 65536)
        if not chunk:
            sys.exit(0)  # stdin closed: the host is gone
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            handle(json.loads(line.decode("utf-8")))
        if len(pending) > MAX_FRAME_BYTES:
            sys.stderr.write("host frame exceeds the frame limit\n")
            sys.exit(1)


if __name__ == "__main__":
    main()
