"""A web app (plain WSGI, one route) whose worker processes share one token cache in Redis.

    TOKENCACHE_REDIS_KEY=$(head -c 32 /dev/urandom | base64) \\
    TOKENCACHE_WEB_STORE='redis://127.0.0.1:6379?key=env:TOKENCACHE_REDIS_KEY' \\
    CLIENT_ID=... CLIENT_SECRET=... TENANT_ID=... python app.py --workers 2 --port 8000

`GET /` calls a downstream API on the app's own behalf (client credentials): the first worker that
needs the token asks the identity provider; every other worker, on this machine or any other one
that opens the same Redis, finds it in the store. The answer says which worker answered and where
its token came from, never the token.
"""

import argparse
import json
import os
import signal
import socket
import sys
import wsgiref.simple_server

import msal
from tokencache.msal import TokenCache

SCOPES = ["https://graph.microsoft.com/.default"]


class App:
    """The WSGI application of one worker process: one MSAL app over the shared store."""

    def __init__(self, store, client_id, client_secret, tenant_id, http_client=None):
        options = {"http_client": http_client} if http_client is not None else {}
        self.msal = msal.ConfidentialClientApplication(
            client_id, client_credential=client_secret, authority="https://login.microsoftonline.com/" + tenant_id,
            token_cache=TokenCache(store=store), **options)

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO", "/") != "/":
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"not found\n"]
        result = self.msal.acquire_token_for_client(SCOPES)
        if "access_token" not in result:
            body, status = {"error": result.get("error"), "error_description": result.get("error_description")}, "502 Bad Gateway"
        else:
            # Here the app would call the downstream API with result["access_token"].
            body, status = {"worker": os.getpid(), "token_source": result.get("token_source")}, "200 OK"
        payload = (json.dumps(body) + "\n").encode()
        start_response(status, [("Content-Type", "application/json"), ("Content-Length", str(len(payload)))])
        return [payload]


class QuietHandler(wsgiref.simple_server.WSGIRequestHandler):
    def log_message(self, format, *args):
        sys.stderr.write("worker %d: %s\n" % (os.getpid(), format % args))


def serve(arguments, http_client_factory=None):
    """Binds the port once, then forks the workers; each accepts connections from the shared socket."""
    listener = socket.create_server(("127.0.0.1", arguments.port))
    workers = []
    for _ in range(arguments.workers):
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            # Each worker opens its own store connection and MSAL app after the fork.
            app = App(arguments.store, arguments.client_id, arguments.client_secret, arguments.tenant_id,
                      http_client=http_client_factory() if http_client_factory else None)
            server = wsgiref.simple_server.WSGIServer(("127.0.0.1", arguments.port), QuietHandler, bind_and_activate=False)
            server.socket.close()
            server.socket = listener
            server.server_address = listener.getsockname()
            server.server_name, server.server_port = server.server_address
            server.setup_environ()
            server.set_app(app)
            try:
                server.serve_forever()
            finally:
                os._exit(0)
        workers.append(pid)
    listener.close()

    def stop(signum, frame):
        for pid in workers:
            os.kill(pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print("serving http://127.0.0.1:%d/ with %d workers" % (arguments.port, len(workers)), flush=True)
    for pid in workers:
        os.waitpid(pid, 0)
    return 0


def main(argv=None, http_client=None):
    parser = argparse.ArgumentParser(description="A WSGI app whose workers share app tokens in Redis.")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--store", default=os.environ.get("TOKENCACHE_WEB_STORE"),
                        help="the tokencache store (default: TOKENCACHE_WEB_STORE), e.g. redis://HOST:PORT?key=env:NAME")
    arguments = parser.parse_args(argv)
    missing = [name for name in ("CLIENT_ID", "CLIENT_SECRET", "TENANT_ID") if not os.environ.get(name)]
    if missing or not arguments.store:
        parser.error("set %s" % ", ".join(missing + ([] if arguments.store else ["--store or TOKENCACHE_WEB_STORE"])))
    arguments.client_id = os.environ["CLIENT_ID"]
    arguments.client_secret = os.environ["CLIENT_SECRET"]
    arguments.tenant_id = os.environ["TENANT_ID"]
    # Every worker gets its own HTTP session (tests: its own offline identity provider).
    factory = (lambda: type(http_client)()) if http_client is not None else None
    return serve(arguments, factory)


if __name__ == "__main__":
    sys.exit(main())
