"""Shared fixtures: a private SQLite store per test, and MSAL Python apps in their own processes."""

import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

FIXTURES = os.path.normpath(os.path.join(HERE, "..", "..", "..", "Tests", "Fixtures"))


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A fresh SQLite store of the test's own (its data key in a 0600 file beside it), which is
    also the default store (TOKENCACHE_STORE) of the test and of the processes it starts."""
    spec = "sqlite:" + str(tmp_path / "cache.sqlite")
    monkeypatch.setenv("TOKENCACHE_STORE", spec)
    monkeypatch.setenv("TOKENCACHE_KEY", "file")
    return spec


class App:
    """An MSAL Python app in a process of its own (tests/worker.py), driven over pipes."""

    def __init__(self, kind, location, tag):
        self.process = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "worker.py"), kind, location, tag],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        ready = self.process.stdout.readline()
        assert ready, "the worker process died before it was ready"
        self.pid = json.loads(ready)["ready"]

    def send(self, op, **arguments):
        self.process.stdin.write(json.dumps(dict(arguments, op=op)) + "\n")
        self.process.stdin.flush()

    def receive(self):
        line = self.process.stdout.readline()
        assert line, "the worker process died"
        answer = json.loads(line)
        assert "error" not in answer, answer["error"]
        return answer

    def call(self, op, **arguments):
        self.send(op, **arguments)
        return self.receive()

    def quit(self):
        if self.process.poll() is None:
            self.process.stdin.write('{"op": "quit"}\n')
            self.process.stdin.flush()
            self.process.wait(timeout=60)


@pytest.fixture
def spawn():
    """Starts worker processes; every one still running is stopped after the test."""
    started = []

    def start(kind, location, tag="p"):
        app = App(kind, location, tag)
        started.append(app)
        return app
    yield start
    for app in started:
        try:
            app.quit()
        except Exception:
            app.process.kill()
            app.process.wait()


def cli(*arguments):
    """Runs the tokencache CLI (TOKENCACHE_CLI, else `tokencache` on PATH) on the test's store."""
    executable = os.environ.get("TOKENCACHE_CLI", "tokencache")
    result = subprocess.run([executable, *arguments], capture_output=True, text=True)
    assert result.returncode == 0, "tokencache %s failed (%d): %s" % (
        " ".join(arguments), result.returncode, result.stderr)
    return result.stdout
