"""``tarneeb-serve``: the advisor API (:mod:`.server`) on 127.0.0.1, for programs in any language."""
from __future__ import annotations

import argparse
from typing import Optional

from agents.explain import MAX_SAMPLES

from ..web.serving import allowed_hosts, listen, need_web_extra, serve
from .server import MAX_INFLIGHT


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="tarneeb-serve",
                                description="Serve the strong player's advice for Tarneeb positions as a JSON HTTP "
                                            "API (POST /v1/advice; the OpenAPI document at /openapi.json).")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1; 0.0.0.0 opens the API, which has no login, to "
                        "the whole network)")
    p.add_argument("--port", type=int, default=8001, help="port (default 8001; 0 picks a free one)")
    p.add_argument("--max-samples", type=int, default=MAX_SAMPLES, metavar="N",
                   help=f"the most layouts one request may ask to search (default {MAX_SAMPLES})")
    p.add_argument("--cors", default="", metavar="ORIGIN,ORIGIN",
                   help="web pages (origins such as http://localhost:5173) whose scripts may call the API from a "
                        "browser (none by default)")
    p.add_argument("--workers", type=int, default=MAX_INFLIGHT, metavar="N",
                   help=f"pieces of advice computed at once; one more gets 429 (default {MAX_INFLIGHT})")
    return p


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    need_web_extra(parser, "tarneeb-serve")
    from .server import create_app

    if not 0 <= args.max_samples <= MAX_SAMPLES:
        parser.error(f"--max-samples: must be 0..{MAX_SAMPLES}, got {args.max_samples}")
    if args.workers < 1:
        parser.error(f"--workers: must be at least 1, got {args.workers}")
    origins = [o.strip() for o in args.cors.split(",") if o.strip()]
    bad = [o for o in origins if o != "*" and not o.startswith(("http://", "https://"))]
    if bad:
        parser.error(f"--cors: an origin is scheme://host[:port], e.g. http://localhost:5173; got {bad[0]!r}")
    sock, base = listen(parser, args.host, args.port)
    app = create_app(args.max_samples, args.workers, allowed_hosts=allowed_hosts(args.host), cors_origins=origins)
    print(f"Tarneeb advisor: POST {base}/v1/advice · OpenAPI document {base}/openapi.json")
    serve(app, sock, args.host, "the API")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
