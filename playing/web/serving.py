"""Start-up shared by the two servers on uvicorn, the web table (``python -m playing.web``) and the advisor API
(``tarneeb-serve``): the web extra's check, one torch thread, the listening socket, and serving until Ctrl-C."""
from __future__ import annotations

import argparse
import ipaddress
import socket

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def need_web_extra(parser: argparse.ArgumentParser, what: str) -> None:
    """The parser's one-line error naming the missing package when the web extra is not installed; then one torch
    thread (a request is one decision: extra threads only add latency under load)."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        parser.error(f"{what} needs the web extra ({e.name} is missing): pip install -e '.[web]'")
    import torch

    torch.set_num_threads(1)


def is_loopback(host: str) -> bool:
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return host == "localhost"


def allowed_hosts(host: str) -> tuple[str, ...]:
    """The Host headers a server on ``host`` answers: its loopback names (against DNS rebinding), or any."""
    return LOOPBACK_HOSTS if is_loopback(host) else ("*",)


def check_port(parser: argparse.ArgumentParser, port: int) -> None:
    """The parser's one-line error for a port out of range (a CLI may check it before slow start-up work)."""
    if not 0 <= port < 65536:
        parser.error(f"--port: must be 0..65535, got {port}")


def listen(parser: argparse.ArgumentParser, host: str, port: int) -> tuple[socket.socket, str]:
    """A socket listening on ``host:port`` (the parser's error for a port out of range or not free), and the
    address a browser reaches it at (``http://127.0.0.1:8000``)."""
    check_port(parser, port)
    try:
        sock = socket.create_server((host, port))
    except OSError as e:
        parser.error(f"cannot listen on {host}:{port}: {e.strerror or e}")
    bound, bound_port = sock.getsockname()[:2]
    shown = f"[{bound}]" if ":" in bound else bound
    return sock, f"http://{'127.0.0.1' if bound == '0.0.0.0' else shown}:{bound_port}"


def serve(app, sock: socket.socket, host: str, what: str) -> None:
    """Serve ``app`` on ``sock`` until Ctrl-C, warning first when ``host`` opens ``what`` to the network."""
    import uvicorn

    if not is_loopback(host):
        print(f"WARNING: listening on {host}: anyone who can reach this machine can use {what} (no login).")
    print("Ctrl-C stops the server.", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    try:
        server.run(sockets=[sock])
    except KeyboardInterrupt:
        pass
