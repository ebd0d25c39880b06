"""``python -m etki.wiki``: see :mod:`etki.wiki.cli`."""

import sys

from etki.wiki.cli import main

sys.exit(main())
