"""What the editor checks share: a checker that counts, CPython as the
judge, and an environment whose HOME and XDG folders lie inside a
temporary folder (so that an editor writes nothing outside it)."""

import ast
import os


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def __call__(self, ok, what):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL:", what)
        return ok


def parses(text):
    try:
        ast.parse(text)
        return True
    except SyntaxError:
        return False


def isolated_env(top):
    """os.environ with HOME and the XDG folders (created) under `top`."""
    home = os.path.join(top, "home")
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_DATA_HOME=os.path.join(home, ".local", "share"),
               XDG_STATE_HOME=os.path.join(home, ".local", "state"), XDG_RUNTIME_DIR=os.path.join(top, "run"))
    for key in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        os.makedirs(env[key], exist_ok=True)
    return env
