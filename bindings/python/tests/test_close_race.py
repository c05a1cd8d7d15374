"""`Cache.close()` while other threads are inside calls on the same cache: the process survives,
calls in flight finish, and calls after the close raise ValueError (never a crash, never another
error). The race runs in a child process, so a crash fails the test instead of ending pytest."""

import os
import subprocess
import sys
import textwrap

RACE = textwrap.dedent('''
    import sys, threading, time
    from tokencache import Cache

    unexpected = []

    def work(cache, index, stop):
        while not stop.is_set():
            try:
                if index % 3 == 0:
                    cache.accounts()
                elif index % 3 == 1:
                    cache.msal_search("AccessToken", {"client_id": "c"}, ["User.Read"])
                else:
                    cache.access_token(home_account_id="h", environment="e", client_id="c", scopes=["s"])
            except ValueError:
                pass
            except Exception as error:
                unexpected.append(repr(error))

    for round_ in range(int(sys.argv[1])):
        cache = Cache(sys.argv[2], options={"key": "file"} if sys.argv[2].startswith("sqlite:") else None)
        stop = threading.Event()
        threads = [threading.Thread(target=work, args=(cache, n, stop)) for n in range(6)]
        for thread in threads:
            thread.start()
        time.sleep(0.005)
        cache.close()
        time.sleep(0.005)
        stop.set()
        for thread in threads:
            thread.join()
    print("unexpected: %d %s" % (len(unexpected), unexpected[:3]))
    sys.exit(1 if unexpected else 0)
''')


def run_race(store, rounds=30):
    return subprocess.run([sys.executable, "-c", RACE, str(rounds), store], capture_output=True, text=True,
                          timeout=300, env=dict(os.environ))


def test_close_racing_with_calls_on_a_memory_store():
    result = run_race("memory")
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr[-2000:])


def test_close_racing_with_calls_on_a_sqlite_store(tmp_path):
    result = run_race("sqlite:" + str(tmp_path / "cache.sqlite"), rounds=10)
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr[-2000:])


def test_calls_after_close_raise_value_error():
    from tokencache import Cache

    cache = Cache("memory")
    cache.close()
    cache.close()
    try:
        cache.accounts()
    except ValueError as error:
        assert "closed" in str(error)
    else:
        raise AssertionError("a call after close() did not raise")
