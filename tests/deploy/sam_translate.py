"""Runs AWS SAM's own transform (samtranslator, from the SAM CLI in .venv-sam) on a template.

Usage (by tests/deploy/transform.py, under .venv-sam's Python, which holds samtranslator pinned
by the SAM CLI version the Makefile installs): JSON template on stdin, transformed JSON on stdout.
This file imports nothing of the project: .venv-sam has only the SAM CLI.

CloudFormation runs the same transform server-side on `sam deploy`; offline, managed policies
named in `Policies` would need IAM to look up their ARNs, so a name that is not a policy the
template may use is an error here rather than a guess.
"""

from __future__ import annotations

import json
import sys

# Managed policies SAM itself attaches (execution role, X-Ray); ARNs in the aws partition.
MANAGED = {
    "AWSLambdaBasicExecutionRole": "arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    "AWSXrayWriteOnlyAccess": "arn:aws:iam::aws:policy/AWSXrayWriteOnlyAccess",
}


class _Loader:
    def load(self) -> dict[str, str]:
        return dict(MANAGED)


def main() -> int:
    from samtranslator.translator.transform import transform

    template = json.load(sys.stdin)
    parameters = json.loads(sys.argv[1]) if len(sys.argv) > 1 else {}
    transformed = transform(template, parameters, _Loader())  # type: ignore[arg-type]
    json.dump(transformed, sys.stdout, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
