"""``python -m dprank.cli``: the ``dprank`` command, as ``python -m dprank``."""

import sys

from . import main

sys.exit(main())
