"""What the editor checks share: the language server check's counter,
CPython as the judge (the backend checks' `valid`), and an environment
whose HOME and XDG folders lie inside a temporary folder (so that an
editor writes nothing outside it)."""

import os
import sys

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TESTS, "lsp"))
sys.path.insert(0, os.path.join(TESTS, "backends"))
from harness import valid as parses  # noqa: E402,F401
from lsp_check import Checker, needs_more  # noqa: E402,F401


def isolated_env(top):
    """os.environ with HOME and the XDG folders (created) under `top`."""
    home = os.path.join(top, "home")
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, ".config"),
               XDG_CACHE_HOME=os.path.join(home, ".cache"), XDG_DATA_HOME=os.path.join(home, ".local", "share"),
               XDG_STATE_HOME=os.path.join(home, ".local", "state"), XDG_RUNTIME_DIR=os.path.join(top, "run"))
    for key in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_RUNTIME_DIR"):
        os.makedirs(env[key], exist_ok=True)
    return env
