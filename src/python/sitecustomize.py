"""sitecustomize.py of gpuscope: put first on PYTHONPATH by `gpuscope profile --pytorch MODE`
(GPUSCOPE_PYTORCH=MODE), so that Python runs it at start-up in every process of the session.
It runs the sitecustomize it shadows, if there is one, then installs gpuscope_pytorch's hook,
which waits for the program to import torch. Nothing here may change what the program does:
any failure is one line on stderr, and the program goes on."""
import os
import sys


def _chain():
    """Run the sitecustomize module that this one hides, as Python would have."""
    import importlib.machinery
    import importlib.util
    here = os.path.dirname(os.path.abspath(__file__))
    path = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", path)
    if spec is None or spec.loader is None:
        return
    module = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = module
    spec.loader.exec_module(module)


try:
    _chain()
except Exception as e:  # the user's own sitecustomize failed: Python would print and go on
    print("Error in sitecustomize; set PYTHONVERBOSE for traceback:\n%s: %s"
          % (type(e).__name__, e), file=sys.stderr)

try:
    import gpuscope_pytorch
    gpuscope_pytorch.install(os.environ.get("GPUSCOPE_PYTORCH", "none"))
except Exception as e:
    print("gpuscope: --pytorch: not annotating (%s: %s)" % (type(e).__name__, e), file=sys.stderr)
