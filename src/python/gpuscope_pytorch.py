"""gpuscope_pytorch.py: `gpuscope profile --pytorch nvtx|nvtx-shapes` for PyTorch programs,
without a change to them. When the program imports torch, this module:

- turns on PyTorch's NVTX mode of its profiler (what torch.autograd.profiler.emit_nvtx does,
  kept on for the whole run): a range per autograd operator (aten::addmm, ...), with the input
  shapes in the name under nvtx-shapes; PyTorch's own record_function annotations come with it,
  among them `enumerate(DataLoader)#...__next__` around each batch fetch and
  `Optimizer.step#SGD.step` around each optimizer step;
- wraps every nn.Module's forward in a range named by the module's path in its model, as
  `layer3.1.conv2` (the model itself by its class name, `ResNet`), through PyTorch's global
  module forward hooks; not inside code torch.compile traces, where a range would break its
  graph.

The ranges are NVTX ranges, recorded by gpuscope's NVTX collector like any other. Nothing is
done before torch is imported, CUDA is never initialised by this module, and any failure is one
line on stderr: the program runs on unchanged."""
import sys
import weakref

_state = {"mode": "none", "done": False}


def _warn(msg):
    print("gpuscope: --pytorch: " + msg, file=sys.stderr)


def install(mode):
    """Called by gpuscope's sitecustomize with GPUSCOPE_PYTORCH."""
    if mode not in ("nvtx", "nvtx-shapes"):
        return
    _state["mode"] = mode
    if "torch" in sys.modules and hasattr(sys.modules["torch"], "nn"):
        _setup(sys.modules["torch"])
    else:
        sys.meta_path.insert(0, _TorchFinder())


class _TorchFinder:
    """Finds nothing itself: when `torch` is about to be imported, it has the other finders
    find it and wraps the loader so that _setup runs once torch has finished importing."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch" or _state["done"]:
            return None
        import importlib.abc
        import importlib.util
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec("torch")
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader

        class _Loader(importlib.abc.Loader):
            def create_module(self, s):
                return loader.create_module(s)

            def exec_module(self, module):
                loader.exec_module(module)
                try:
                    _setup(module)
                except Exception as e:
                    _warn("not annotating (%s: %s)" % (type(e).__name__, e))

        spec.loader = _Loader()
        return spec


def _setup(torch):
    if _state["done"]:
        return
    _state["done"] = True
    nvtx = getattr(getattr(torch, "cuda", None), "nvtx", None)
    if nvtx is None or not getattr(torch._C, "_nvtx", None):
        _warn("this torch has no NVTX support (a build without CUDA): not annotating")
        return
    _operators(torch, _state["mode"] == "nvtx-shapes")
    _modules(torch, nvtx)


def _operators(torch, shapes):
    """PyTorch's profiler in NVTX mode, for the whole run and every thread it covers. This is
    emit_nvtx's __enter__ without its torch.cuda.synchronize(), which would initialise CUDA."""
    ctx = torch.autograd.profiler.emit_nvtx(record_shapes=shapes)
    sync = torch.cuda.synchronize
    torch.cuda.synchronize = lambda *a, **k: None
    try:
        ctx.__enter__()
    finally:
        torch.cuda.synchronize = sync
    _state["emit_nvtx"] = ctx  # kept: leaving it would turn the ranges off


def _modules(torch, nvtx):
    """A range around each module's forward, named by its path from the outermost module
    called (the model): the path is found once per model, from named_modules()."""
    names = weakref.WeakKeyDictionary()
    push, pop = nvtx.range_push, nvtx.range_pop

    def name_of(module):
        n = names.get(module)
        if n is None:  # called before any model containing it: it is a model
            root = type(module).__name__
            for path, sub in module.named_modules():
                if sub not in names:
                    names[sub] = path if path else root
            n = names[module]
        return n

    # Inside code torch.compile traces, a range would be a graph break at every module
    # (Dynamo does not put torch.cuda.nvtx calls in a graph: "torch.* op returned non-Tensor"),
    # which changes the program: there the hooks do nothing, is_compiling() being a constant
    # True to Dynamo's tracing and False when run eagerly. The compiled graph runs as one piece;
    # its modules have no range of their own. (torch.compiler.is_compiling: torch >= 2.3;
    # torch._dynamo is not imported for an older one, a second's import the program may not do.)
    compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (lambda: False)

    def before(module, args):
        if not compiling():
            push(name_of(module))

    def after(module, args, output):
        if not compiling():
            pop()

    hooks = torch.nn.modules.module
    hooks.register_module_forward_pre_hook(before)
    try:  # always_call (torch >= 2.1): the range closes when forward raises, too
        hooks.register_module_forward_hook(after, always_call=True)
    except TypeError:
        hooks.register_module_forward_hook(after)
