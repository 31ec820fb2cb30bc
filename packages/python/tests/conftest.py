import sys
from pathlib import Path

# helpers.py sits beside the tests; `nap` itself comes from the installed package (the wheel, in CI), never from
# the source tree.
sys.path.insert(0, str(Path(__file__).parent))
