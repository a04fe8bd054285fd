"""`python -m rmlib.book ...` (see :mod:`rmlib.book.cli`)."""
import sys

from rmlib.book.cli import main

sys.exit(main())
