"""Shared pieces of the Python package's tests.

Tests that need NVIDIA's ptxas find it as the CLI does (KERNELC_PTXAS,
PATH, CUDA_HOME); under CI=true a missing tool fails the test instead of
skipping it, as in the Rust suite.
"""

import os
import shutil

import pytest


def require_ptxas() -> str:
    path = os.environ.get("KERNELC_PTXAS") or shutil.which("ptxas")
    if path:
        return path
    if os.environ.get("CI") == "true":
        pytest.fail("ptxas is required in CI (set KERNELC_PTXAS; ./scripts/test installs it)")
    pytest.skip("ptxas not found: set KERNELC_PTXAS")
    raise AssertionError("unreachable")
