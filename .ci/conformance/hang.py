"""A conformance client that never answers: .ci/run's check that run.sh fails a client the suite reports as timed out."""

import sys
import time

time.sleep(8 if len(sys.argv) > 1 else 0)  # past the 2 s the check gives it; the suite waits for its end
