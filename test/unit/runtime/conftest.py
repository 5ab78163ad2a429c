"""Kernels run the way the interpreter runs them: under numpy.errstate(all="ignore")."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def quiet_floating_point():
    with np.errstate(all="ignore"):
        yield
