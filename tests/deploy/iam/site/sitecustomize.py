"""Starts the AWS call recorder in every Python process of a test run (tests/deploy/iam).

On PYTHONPATH only while the suite runs (set by tests/deploy/iam/plugin.py, inherited by xdist
workers and every subprocess); does nothing unless AUTHGATE_AWS_CALL_LOG_DIR is set.
"""

import os

if os.environ.get("AUTHGATE_AWS_CALL_LOG_DIR"):
    try:
        import authgate_call_recorder

        authgate_call_recorder.install()
    except Exception as exc:  # noqa: BLE001 - never stop an interpreter from starting
        import sys

        sys.stderr.write(f"sitecustomize: AWS call recorder not installed: {exc}\n")
