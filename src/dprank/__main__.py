"""``python -m dprank``: the ``dprank`` command (:mod:`dprank.cli`)."""

import sys

from dprank.cli import main

sys.exit(main())
