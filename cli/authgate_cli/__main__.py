"""`python -m authgate_cli` is the `authgate` command."""

import sys

from authgate_cli.main import main

sys.exit(main())
