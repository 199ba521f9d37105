import pathlib
import sys

# the locustfiles' own import root: `from lib import ...`
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
