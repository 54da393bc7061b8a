"""A pytest plugin for running networkx's own tests against minigr's backend (see
test_nxbackend.py): from networkx's dispatch log it counts, for each function the backend
claims, the calls minigr ran and those it declined (which networkx then ran itself), and
writes them as JSON to $MINIGR_NX_COUNTS: {function: {"minigr": n, "networkx": m}}."""
import json
import logging
import os

from minigr.nx.backend import FUNCTIONS


class DispatchCounter(logging.Handler):
    """Counts networkx's debug messages (networkx >= 3.4) about calls to minigr's functions."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.counts = {name: {"minigr": 0, "networkx": 0} for name in FUNCTIONS}

    def emit(self, record):
        message, args = str(record.msg), record.args
        if not isinstance(args, tuple) or len(args) < 2 or args[1] not in self.counts:
            return
        counts = self.counts[args[1]]
        if message.startswith("Using backend"):  # networkx hands the call to minigr
            counts["minigr"] += 1
        elif "raised when calling" in message:  # minigr declined on seeing the data
            counts["minigr"] -= 1
            counts["networkx"] += 1
        elif "can't run" in message:  # minigr declined in can_run
            counts["networkx"] += 1


COUNTER = DispatchCounter()


def pytest_configure(config):
    log = logging.getLogger("networkx.utils.backends")
    log.setLevel(logging.DEBUG)
    log.propagate = False  # spare pytest's log capture from formatting every dispatch message
    log.addHandler(COUNTER)


def pytest_unconfigure(config):
    with open(os.environ["MINIGR_NX_COUNTS"], "w") as f:
        json.dump(COUNTER.counts, f)
