"""A stand-in `vllm` package for fast launcher tests: the module the launcher runs, answering
/health, /v1/models and /v1/completions, or dying with a message when FAKE_VLLM_FAIL is set."""

from __future__ import annotations

import socket
import sys
from pathlib import Path
from typing import Any

FAKE_API_SERVER = """
import argparse, json, os, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--host")
parser.add_argument("--port", type=int)
parser.add_argument("--served-model-name", default="fake/model")
args, _ = parser.parse_known_args()
print("fake vllm starting", flush=True)
if os.environ.get("FAKE_VLLM_FAIL"):
    print("RuntimeError: not enough memory for the KV cache", flush=True)
    sys.exit(1)
time.sleep(float(os.environ.get("FAKE_VLLM_DELAY", "0.3")))


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/v1/models":
            body = json.dumps({"object": "list", "data": [{"id": args.served_model_name}]})
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.end_headers()
            self.wfile.write(body.encode())
            return
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        body = json.dumps({"choices": [{"index": 0, "text": "ok"}]}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


ThreadingHTTPServer((args.host, args.port), Handler).serve_forever()
"""


def install_fake_vllm(root: Path) -> None:
    """Write the stand-in `vllm` package under `root` (put `root` on PYTHONPATH to use it)."""
    package = root / "vllm" / "entrypoints" / "openai"
    package.mkdir(parents=True)
    for folder in (root / "vllm", root / "vllm" / "entrypoints", package):
        (folder / "__init__.py").write_text("")
    (package / "api_server.py").write_text(FAKE_API_SERVER)


def fake_vllm_config() -> Any:
    """A `ModelServerConfig` for the stand-in, on a free port."""
    from parforge.model_server import ModelServerConfig

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return ModelServerConfig(
        port=port, model="fake/model", python=sys.executable, start_timeout_s=20, stop_timeout_s=5
    )
