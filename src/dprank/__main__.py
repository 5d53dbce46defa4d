"""``python -m dprank``: the ``dprank`` command (:mod:`dprank.cli`), and the installed
``dprank`` script's entry point (:func:`run`)."""

import gc
import sys


def run() -> int:
    """The command with the cyclic garbage collector paused from before its imports (numpy's
    and the command's own: a few dozen collections otherwise); :func:`dprank.cli.main` keeps
    it paused while the command runs."""
    gc.disable()
    from dprank.cli import main

    return main()


if __name__ == "__main__":
    sys.exit(run())
