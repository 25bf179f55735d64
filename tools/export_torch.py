#!/usr/bin/python3
"""File: tools/export_torch.py

Exports one PyTorch training step (forward, backward, optimizer update) as a
devplace graph (native JSON, "devplace-graph" version 1; docs/formats.md,
section "PyTorch export").

Approach: functorch's aot_module traces the model plus its loss into a joint
forward + backward graph of aten ops, partitioned into two FX graphs: the
forward graph, whose extra outputs are the activations saved for backward,
and the backward graph, whose inputs are those saved tensors and the
tangent of the loss, and whose outputs are one gradient per forward input.
Each FX node becomes one devplace op; the saved tensors become edges from
forward ops to backward ops. Then one optimizer update op per parameter is
added. Each op is then run on its own, with the real tensors an interpreter
pass computed for its inputs, and its median CPU time is written as
measured_time_s.cpu. An "export" block records the options that rebuild the
same traced step (export_block); tools/measure_torch.py imports this file and
rebuilds it with build_training_step and Exporter.

Run with /usr/bin/python3 (Debian's python3-torch 1.13 and torchvision 0.14).

    /usr/bin/python3 tools/export_torch.py resnet18 --batch 2 --image-size 64 --out r18.json
    /usr/bin/python3 tools/export_torch.py --model mypkg.models:build --out m.json

Exit codes: 0 success, 1 internal error, 2 bad input or usage (one line on
stderr, no traceback).
"""

import argparse
import difflib
import importlib
import json
import math
import operator
import os
import statistics
import sys
import time
import warnings

PROG = "export_torch.py"


class UsageError(Exception):
    """Bad input or usage: reported as one line, exit code 2."""


# ---------------------------------------------------------------------------
# Command line


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, instead of argparse's usage block
        raise UsageError(message + " (see --help)")


def parse_args(argv):
    p = _Parser(
        prog=PROG,
        description="Export one PyTorch training step (forward, backward, update) as a devplace graph JSON.",
    )
    p.add_argument("model_name", nargs="?", help="torchvision classification model, e.g. resnet18, mobilenet_v2")
    p.add_argument("--model", dest="model_spec", metavar="MODULE:FUNCTION",
                   help="importable function returning (model, example_input); example_input is a tensor or a tuple of tensors")
    p.add_argument("--batch", type=int, default=2, help="batch size for torchvision models (default 2)")
    p.add_argument("--image-size", type=int, default=64, help="input height and width for torchvision models (default 64)")
    p.add_argument("--num-classes", type=int, default=None, help="classes of a torchvision model (default: the model's own, 1000)")
    p.add_argument("--loss", choices=["auto", "cross_entropy", "sum", "mean"], default="auto",
                   help="loss: cross_entropy with random labels for [batch, classes] outputs, else sum (default auto)")
    p.add_argument("--optimizer", choices=["adam", "sgd", "momentum"], default="adam", help="update op per parameter (default adam)")
    p.add_argument("--repeats", type=int, default=3, help="timed runs per op; the median is written (default 3)")
    p.add_argument("--warmup", type=int, default=1, help="untimed runs per op before timing (default 1)")
    p.add_argument("--threads", type=int, default=None, help="torch CPU threads while measuring (default: torch's default)")
    p.add_argument("--seed", type=int, default=0, help="seed for weights, inputs and labels (default 0)")
    p.add_argument("--name", default=None, help="graph name (default: the model name)")
    p.add_argument("--out", default="-", help="output file (default: stdout)")
    p.add_argument("--list-models", action="store_true", help="print the known torchvision model names and exit")
    p.add_argument("--debug", action="store_true", help="show Python tracebacks of internal errors")
    args = p.parse_args(argv)
    if args.list_models:
        return args
    if (args.model_name is None) == (args.model_spec is None):
        raise UsageError("give either a torchvision model name or --model MODULE:FUNCTION (see --help)")
    for flag, value, low in (("--batch", args.batch, 1), ("--image-size", args.image_size, 1), ("--repeats", args.repeats, 1),
                             ("--warmup", args.warmup, 0), ("--num-classes", args.num_classes, 1), ("--threads", args.threads, 1)):
        if value is not None and value < low:
            raise UsageError(f"{flag}: expected an integer >= {low}, got {value}")
    return args


# ---------------------------------------------------------------------------
# Model sources


def torchvision_models():
    import torchvision
    return sorted(torchvision.models.list_models(module=torchvision.models))


def unknown_model_message(name, known):
    close = difflib.get_close_matches(name, known, n=3)
    hint = f"did you mean {', '.join(close)}? " if close else ""
    examples = ", ".join(n for n in ("resnet18", "resnet50", "mobilenet_v2", "squeezenet1_0", "vgg11", "densenet121") if n in known)
    return (f"unknown torchvision model '{name}' ({hint}known: {examples}, ... {len(known)} in all; "
            f"--list-models prints them)")


def load_torchvision(args):
    import torch
    import torchvision
    known = torchvision_models()
    if args.model_name not in known:
        raise UsageError(unknown_model_message(args.model_name, known))
    kwargs = {"weights": None}
    if args.num_classes is not None:
        kwargs["num_classes"] = args.num_classes
    try:
        model = torchvision.models.get_model(args.model_name, **kwargs)
    except (TypeError, ValueError) as e:
        raise UsageError(f"model '{args.model_name}': cannot build it: {first_line(e)}")
    x = torch.randn(args.batch, 3, args.image_size, args.image_size)
    return model, (x,)


def load_user_function(spec):
    import torch
    module_name, sep, func_name = spec.partition(":")
    if not sep or not module_name or not func_name:
        raise UsageError(f"--model '{spec}': expected MODULE:FUNCTION, e.g. mypkg.models:build")
    if os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # the user's module: any failure is their input
        raise UsageError(f"--model '{spec}': cannot import module '{module_name}': {first_line(e)}")
    func = getattr(module, func_name, None)
    if not callable(func):
        raise UsageError(f"--model '{spec}': module '{module_name}' has no function '{func_name}'")
    try:
        result = func()
    except Exception as e:
        raise UsageError(f"--model '{spec}': {func_name}() failed: {first_line(e)}")
    if not (isinstance(result, (tuple, list)) and len(result) == 2 and isinstance(result[0], torch.nn.Module)):
        raise UsageError(f"--model '{spec}': {func_name}() must return (model, example_input) with model a torch.nn.Module")
    model, example = result
    inputs = (example,) if isinstance(example, torch.Tensor) else tuple(example) if isinstance(example, (tuple, list)) else None
    if not inputs or not all(isinstance(t, torch.Tensor) for t in inputs):
        raise UsageError(f"--model '{spec}': example_input must be a tensor or a non-empty tuple of tensors")
    return model, inputs


def first_line(e):
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}".rstrip(": ")


# ---------------------------------------------------------------------------
# Loss


def output_leaves(out):
    import torch
    from torch.utils._pytree import tree_flatten
    return [t for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor) and t.is_floating_point()]


def choose_loss(kind, out, batch):
    """Returns the loss kind used for this output: 'cross_entropy', 'sum' or 'mean'."""
    leaves = output_leaves(out)
    if not leaves:
        raise UsageError("the model's output holds no floating-point tensor: nothing to differentiate")
    logits_like = leaves[0].dim() == 2 and leaves[0].shape[0] == batch
    if kind == "auto":
        return "cross_entropy" if logits_like else "sum"
    if kind == "cross_entropy" and not logits_like:
        raise UsageError(f"--loss cross_entropy needs a [batch, classes] output, got shape {list(leaves[0].shape)}")
    return kind


def make_loss_module(model, loss_kind, num_classes):
    import torch
    import torch.nn.functional as F

    class LossModule(torch.nn.Module):
        # cross_entropy: mean cross-entropy of every [batch, classes] output
        # (main and auxiliary logits) against the labels, summed; sum / mean:
        # the sum of every floating-point output's sum / mean.
        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, *args):
            if loss_kind == "cross_entropy":
                inputs, labels = args[:-1], args[-1]
            else:
                inputs, labels = args, None
            leaves = output_leaves(self.model(*inputs))
            terms = []
            for t in leaves:
                if loss_kind == "cross_entropy":
                    if t.dim() == 2 and t.shape[1] == num_classes:
                        terms.append(F.cross_entropy(t, labels))
                elif loss_kind == "sum":
                    terms.append(t.sum())
                else:
                    terms.append(t.mean())
            loss = terms[0]
            for t in terms[1:]:
                loss = loss + t
            return loss

    return LossModule()


# ---------------------------------------------------------------------------
# Capture: aot_module with module markers in the FX stack traces


MARKER = "devplace-module:"


class ModuleMarkers:
    """Forward hooks that make every FX node's stack_trace name the module it runs in.

    aot_module records fx.traceback's current stack as each node's
    stack_trace, and autograd's anomaly mode carries a forward node's stack to
    the backward nodes derived from it. The hooks set that stack to one
    "devplace-module:<qualified name>" line per enclosing module.
    """

    def __init__(self, model, root):
        import torch.fx.traceback as fx_traceback
        self.fx_traceback = fx_traceback
        self.stack = []
        self.handles = [root.register_forward_pre_hook(self._reset)]
        for name, sub in model.named_modules():
            if name:
                self.handles.append(sub.register_forward_pre_hook(self._enter(name)))
                self.handles.append(sub.register_forward_hook(self._leave()))

    def _publish(self):
        # Never empty: fx.traceback ignores an empty stack (keeping a stale one),
        # so code outside every module is marked by a bare marker (layer -1).
        self.fx_traceback.current_stack = [MARKER + n for n in self.stack] or [MARKER]

    def _reset(self, module, args):
        self.stack = []
        self._publish()

    def _enter(self, name):
        def hook(module, args):
            self.stack.append(name)
            self._publish()
        return hook

    def _leave(self):
        def hook(module, args, out):
            if self.stack:
                self.stack.pop()
            self._publish()
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()


def capture(loss_module, model, inputs):
    """Traces the loss module; returns (forward GraphModule, backward GraphModule)."""
    import torch
    import torch.fx.traceback as fx_traceback
    from functorch.compile import aot_module, make_boxed_func

    graphs = {}

    def compiler(key):
        def compile_graph(gm, example_inputs):
            graphs[key] = gm
            return make_boxed_func(gm.forward)
        return compile_graph

    markers = ModuleMarkers(model, loss_module)
    try:
        traced = aot_module(loss_module, fw_compiler=compiler("forward"), bw_compiler=compiler("backward"))
        with fx_traceback.override_stack_trace(), torch.autograd.detect_anomaly(check_nan=False):
            loss = traced(*inputs)
        loss.backward()
    finally:
        markers.remove()
        fx_traceback.current_stack = []
    return graphs["forward"], graphs["backward"]


def named_primals(model):
    """(parameters, buffers) as aot_module lists them: named, in module order, duplicates kept."""
    try:
        from functorch._src.named_members_polyfill import _named_buffers, _named_parameters
        return (list(_named_parameters(model, remove_duplicate=False)),
                list(_named_buffers(model, remove_duplicate=False)))
    except ImportError:  # newer torch: the module methods take remove_duplicate
        return (list(model.named_parameters(remove_duplicate=False)),
                list(model.named_buffers(remove_duplicate=False)))


def module_of(node):
    """The innermost module the node comes from (qualified name), or None."""
    for line in (node.meta.get("stack_trace") or "").splitlines():
        if line.startswith(MARKER):
            return line[len(MARKER):] or None
    return None


# ---------------------------------------------------------------------------
# Measurement


def time_call(fn, warmup, repeats):
    """Runs fn warmup + repeats times; returns (first result, median seconds of the timed runs)."""
    result = None
    times = []
    for i in range(warmup + repeats):
        t0 = time.perf_counter()
        r = fn()
        t1 = time.perf_counter()
        if i == 0:
            result = r
        if i >= warmup:
            times.append(t1 - t0)
    return result, statistics.median(times)


ALIAS_TARGETS = ("aten::detach",)


def is_getitem(node):
    return node.op == "call_function" and node.target is operator.getitem


def is_alias(node):
    sch = getattr(node.target, "_schema", None)
    return node.op == "call_function" and sch is not None and sch.name in ALIAS_TARGETS


def op_type(target):
    sch = getattr(target, "_schema", None)
    if sch is not None:
        ns, _, name = sch.name.partition("::")
        return name if ns == "aten" else f"{ns}.{name}"
    return getattr(target, "__name__", str(target))


class Interpreter:
    """Runs an FX graph node by node on real tensors, timing each op.

    A node's value is kept only until its last user has run, so memory stays
    at the live set. `on_node(node, args, kwargs, value, seconds)` is called
    for every placeholder, get_attr and call_function node with its real
    inputs and result; seconds is None where nothing was timed (placeholders,
    constants, getitem and alias nodes). Each op runs `warmup` untimed times,
    then `repeats` timed times; the median is reported and the first run's
    result is kept. run() returns the graph's outputs.
    """

    def __init__(self, gm, warmup, repeats, on_node):
        self.gm = gm
        self.warmup = warmup
        self.repeats = repeats
        self.on_node = on_node

    def run(self, inputs):
        import torch
        from torch.fx.node import map_arg
        nodes = list(self.gm.graph.nodes)
        last_use = {}
        for i, n in enumerate(nodes):
            for a in n.all_input_nodes:
                last_use[a] = i
        env = {}
        placeholders = iter(inputs)
        result = None
        with torch.no_grad():
            for i, n in enumerate(nodes):
                if n.op == "placeholder":
                    env[n] = next(placeholders)
                    self.on_node(n, (), {}, env[n], None)
                elif n.op == "get_attr":
                    obj = self.gm
                    for part in n.target.split("."):
                        obj = getattr(obj, part)
                    env[n] = obj
                    self.on_node(n, (), {}, obj, None)
                elif n.op == "call_function":
                    args = map_arg(n.args, lambda a: env[a])
                    kwargs = map_arg(n.kwargs, lambda a: env[a])
                    if is_getitem(n) or is_alias(n):
                        env[n] = n.target(*args, **kwargs)
                        self.on_node(n, args, kwargs, env[n], None)
                    else:
                        env[n], seconds = time_call(lambda: n.target(*args, **kwargs), self.warmup, self.repeats)
                        self.on_node(n, args, kwargs, env[n], seconds)
                elif n.op == "output":
                    result = map_arg(n.args[0], lambda a: env[a])
                else:
                    raise RuntimeError(f"unsupported FX node kind '{n.op}' ({n.name})")
                for a in n.all_input_nodes:
                    if last_use.get(a) == i:
                        env.pop(a, None)
        return result


# ---------------------------------------------------------------------------
# FLOPs from shapes


def _numel(shape):
    return math.prod(int(d) for d in shape)


def conv_macs(out_shape, in_shape, weight_shape, transposed):
    # Non-transposed: each output element sums Cin/groups x kernel products
    # (weight is [Cout, Cin/groups, k...]). Transposed: each *input* element
    # scatters into Cout/groups x kernel outputs (weight is [Cin, Cout/groups, k...]).
    per_element = int(weight_shape[1]) * _numel(weight_shape[2:])
    return (_numel(in_shape) if transposed else _numel(out_shape)) * per_element


def op_flops(node, args, result):
    """FLOPs of matmul- and convolution-like aten ops (2 per multiply-add), else 0."""
    name = op_type(node.target)
    try:
        if name == "convolution":
            x, w, b, transposed = args[0], args[1], args[2], bool(args[6])
            macs = conv_macs(result.shape, x.shape, w.shape, transposed)
            return 2 * macs + (result.numel() if b is not None else 0)
        if name == "convolution_backward":
            grad_out, x, w = args[0], args[1], args[2]
            transposed, mask = bool(args[7]), list(args[10])
            macs = conv_macs(grad_out.shape, x.shape, w.shape, transposed)
            return 2 * macs * (int(mask[0]) + int(mask[1])) + (grad_out.numel() if mask[2] else 0)
        if name == "mm":
            (m, k), n = args[0].shape, args[1].shape[1]
            return 2 * m * k * n
        if name == "addmm":
            (m, k), n = args[1].shape, args[2].shape[1]
            return 2 * m * k * n + m * n
        if name in ("bmm", "baddbmm"):
            a, b = (args[0], args[1]) if name == "bmm" else (args[1], args[2])
            bs, m, k = a.shape
            n = b.shape[2]
            return 2 * bs * m * k * n + (bs * m * n if name == "baddbmm" else 0)
        if name in ("mv", "addmv"):
            a = args[0] if name == "mv" else args[1]
            return 2 * a.shape[0] * a.shape[1]
    except (IndexError, ValueError, TypeError, AttributeError):
        return 0
    return 0


# ---------------------------------------------------------------------------
# Graph building


DTYPES = {
    "float32": "float32", "float16": "float16", "bfloat16": "bfloat16", "float64": "float64",
    "int8": "int8", "uint8": "uint8", "int32": "int32", "int64": "int64", "bool": "bool",
}


def tensor_entry(name, t):
    dtype = str(t.dtype).replace("torch.", "")
    entry = {"name": name, "shape": [int(d) for d in t.shape], "dtype": DTYPES.get(dtype, "uint8"),
             "bytes": int(t.numel() * t.element_size())}
    return entry


class GraphWriter:
    """Collects devplace ops, tensor names and co-location groups."""

    def __init__(self, child_index):
        self.ops = []
        self.op_names = set()
        self.producer = {}  # tensor name -> op index
        self.child_index = child_index  # top-level child name -> index
        # op name -> where it comes from, for tools/measure_torch.py (not written):
        # ("placeholder", fx node) for Parameter/Buffer/Input ops, ("forward" or
        # "backward", fx node) for FX nodes (get_attr constants included),
        # ("tangent", k, fx placeholder) for the loss gradient seeds and
        # ("update", parameter name) for update ops.
        self.sources = {}

    def layer_of(self, qualified_name):
        if not qualified_name:
            return -1
        return self.child_index.get(qualified_name.split(".")[0], -1)

    def unique(self, name):
        base, k = name, 1
        while name in self.op_names:
            name = f"{base}_{k}"
            k += 1
        self.op_names.add(name)
        return name

    def add_op(self, name, type_, phase, inputs=(), outputs=(), layer=-1, source=None, **fields):
        """outputs: list of (tensor, or None). Returns (op index, list of tensor names or None)."""
        name = self.unique(name)
        self.sources[name] = source
        op = {"name": name, "type": type_}
        if phase != "forward":
            op["phase"] = phase
        if layer >= 0:
            op["layer"] = layer
        seen = []
        for t in inputs:
            if t not in seen:
                seen.append(t)
        if seen:
            op["inputs"] = seen
        names = []
        entries = []
        for k, t in enumerate(outputs):
            if t is None:
                names.append(None)
                continue
            tname = f"{name}:{k}"
            names.append(tname)
            entries.append(tensor_entry(tname, t))
            self.producer[tname] = len(self.ops)
        if entries:
            op["outputs"] = entries
        op.update({k: v for k, v in fields.items() if v is not None})
        self.ops.append(op)
        return len(self.ops) - 1, names


def tensor_outputs(value):
    """The list of output slots of a node's value: tensors, or None for non-tensors."""
    import torch
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [v if isinstance(v, torch.Tensor) else None for v in value]
    return []


def input_names(node, names):
    out = []
    for a in node.all_input_nodes:
        n = names.get(a)
        if isinstance(n, str):
            out.append(n)
        elif isinstance(n, list):
            out.extend(x for x in n if x)
    return out


class Exporter:
    """Turns the captured forward and backward graphs into devplace ops (see the file banner)."""

    def __init__(self, args, model, inputs, loss_kind):
        self.args = args
        self.model = model
        self.inputs = inputs
        self.loss_kind = loss_kind
        children = [n for n, _ in model.named_children()]
        self.writer = GraphWriter({n: i for i, n in enumerate(children)})

    def export(self, user_inputs, fw, bw):
        """Builds the ops from the forward and backward graphs; returns measured seconds per phase."""
        import torch
        w = self.writer
        args = self.args
        input_labels = ["input"] if len(self.inputs) == 1 else [f"input_{i}" for i in range(len(self.inputs))]
        if self.loss_kind == "cross_entropy":
            input_labels.append("labels")
        # The forward graph's placeholders, as aot_module orders them:
        # parameters, buffers, then the inputs, each tensor once (aot_module
        # drops repeated tensors, so a tied weight keeps its first name).
        named_params, named_buffers = named_primals(self.model)
        flat = ([("param", n, t) for n, t in named_params] + [("buffer", n, t) for n, t in named_buffers] +
                [("input", n, t) for n, t in zip(input_labels, user_inputs)])
        seen = set()
        roles, primals = [], []
        for kind, n, t in flat:
            if id(t) in seen:
                continue
            seen.add(id(t))
            roles.append((kind, n))
            # Buffers are copied: batch norm updates its running statistics in place.
            primals.append(t.detach().clone() if kind == "buffer" else t)
        params = [(n, t) for (kind, n), t in zip(roles, primals) if kind == "param"]
        fw_placeholders = [n for n in fw.graph.nodes if n.op == "placeholder"]
        if len(fw_placeholders) != len(roles):
            raise RuntimeError(f"forward graph has {len(fw_placeholders)} inputs, expected {len(roles)} "
                               f"(parameters, buffers and inputs)")

        names = {}  # fx node -> tensor name (str), list of names (tuple value), or None
        self.param_tensor = {}  # parameter name -> tensor name of its Parameter op
        self.param_op = {}
        role_of = dict(zip(fw_placeholders, roles))
        # Kept for tools/measure_torch.py, which reruns the step from these.
        self.role_of = role_of  # forward placeholder -> (kind, name)
        self.primal_of = dict(zip(fw_placeholders, primals))  # forward placeholder -> its tensor
        self.fw, self.bw = fw, bw
        totals = {"forward": 0.0, "backward": 0.0, "update": 0.0}

        def on_node(phase, prefix):
            def handle(node, a, kw, value, seconds):
                if node.op == "placeholder":
                    if phase == "forward":
                        self._forward_placeholder(node, role_of[node], value, names)
                    return
                if node.op == "get_attr":
                    _, outs = w.add_op(prefix + node.name, "Constant", phase, outputs=tensor_outputs(value)[:1],
                                       source=(phase, node),
                                       measured_time_s={"cpu": 0.0, "gpu": 0.0})
                    names[node] = outs[0] if outs else None
                    return
                if is_getitem(node):
                    src = names.get(node.args[0])
                    names[node] = src[node.args[1]] if isinstance(src, list) and node.args[1] < len(src) else None
                    return
                if is_alias(node):
                    names[node] = names.get(node.args[0])
                    return
                slots = tensor_outputs(value)
                flops = op_flops(node, a, value)
                _, outs = w.add_op(prefix + node.name, op_type(node.target), phase, inputs=input_names(node, names),
                                     source=(phase, node),
                                     outputs=slots, layer=w.layer_of(module_of(node)), flops=flops if flops else None,
                                     measured_time_s={"cpu": seconds})
                totals[phase] += seconds
                names[node] = outs if isinstance(value, (tuple, list)) else (outs[0] if outs else None)
            return handle

        fw_out = Interpreter(fw, args.warmup, args.repeats, on_node("forward", "")).run(primals)
        fw_output_nodes = list(next(n for n in fw.graph.nodes if n.op == "output").args[0])

        # The backward graph's inputs are the forward graph's saved outputs (the
        # tail of its outputs, in order) and then one tangent per user output.
        bw_placeholders = [n for n in bw.graph.nodes if n.op == "placeholder"]
        tangents = [n for n in bw_placeholders if n.name.startswith("tangents")]
        saved = bw_placeholders[:len(bw_placeholders) - len(tangents)]
        num_user_outputs = len(fw_output_nodes) - len(saved)
        if num_user_outputs < 1 or len(tangents) > num_user_outputs:
            raise RuntimeError(f"cannot match the backward graph's {len(saved)} saved inputs to the forward graph's "
                               f"{len(fw_output_nodes)} outputs")
        bw_inputs = []
        self.saved_source = {}  # backward placeholder -> the forward output node it receives
        self.loss_nodes = fw_output_nodes[:num_user_outputs]  # forward output node of each tangent's loss
        for k, ph in enumerate(saved):
            src = fw_output_nodes[num_user_outputs + k]
            self.saved_source[ph] = src
            names[ph] = names.get(src)
            bw_inputs.append(fw_out[num_user_outputs + k])
        loss_names = [names.get(n) for n in fw_output_nodes[:num_user_outputs]]
        for k, ph in enumerate(tangents):
            loss_value = fw_out[k]
            ones, seconds = time_call(lambda: torch.ones_like(loss_value), args.warmup, args.repeats)
            _, outs = w.add_op("bw/" + ph.name, "ones_like", "backward", source=("tangent", k, ph),
                               inputs=[loss_names[k]] if isinstance(loss_names[k], str) else [],
                               outputs=[ones], measured_time_s={"cpu": seconds})
            totals["backward"] += seconds
            names[ph] = outs[0]
            bw_inputs.append(ones)
        bw_out = Interpreter(bw, args.warmup, args.repeats, on_node("backward", "bw/")).run(bw_inputs)
        bw_output_nodes = list(next(n for n in bw.graph.nodes if n.op == "output").args[0])
        self.bw_output_nodes = bw_output_nodes

        totals["update"] = self._add_updates(params, bw_output_nodes, bw_out, names)
        self._colocate(params)
        return totals

    def _forward_placeholder(self, node, role, value, names):
        w = self.writer
        kind, name = role
        if kind == "param":
            idx, outs = w.add_op(name, "Parameter", "forward", outputs=[value], layer=w.layer_of(name),
                                 source=("placeholder", node),
                                 parameter_bytes=int(value.numel() * value.element_size()),
                                 measured_time_s={"cpu": 0.0, "gpu": 0.0})
            self.param_tensor[name] = outs[0]
            self.param_op[name] = idx
            names[node] = outs[0]
        elif kind == "buffer":
            if not node.users:  # e.g. BatchNorm's num_batches_tracked: unused by the traced step
                names[node] = None
                return
            _, outs = w.add_op(name, "Buffer", "forward", outputs=[value], layer=w.layer_of(name),
                               source=("placeholder", node),
                               measured_time_s={"cpu": 0.0, "gpu": 0.0})
            names[node] = outs[0]
        else:
            _, outs = w.add_op(name, "Input", "forward", outputs=[value], kernels=["cpu"],
                               source=("placeholder", node),
                               measured_time_s={"cpu": 0.0, "gpu": 0.0})
            names[node] = outs[0]

    def _add_updates(self, params, bw_output_nodes, bw_out, names):
        """One update op per parameter that receives a gradient; returns their total measured seconds."""
        w = self.writer
        a = self.args
        op_type_name = {"adam": "ApplyAdam", "sgd": "ApplyGradientDescent", "momentum": "ApplyMomentum"}[a.optimizer]
        state_factor = {"adam": 2, "sgd": 0, "momentum": 1}[a.optimizer]
        flops_per_element = {"adam": 12, "sgd": 2, "momentum": 4}[a.optimizer]
        self.update_op = {}
        self.grad_tensor = {}
        self.grad_node = {}  # parameter name -> the backward output node of its gradient
        self.param_value = dict(params)  # parameter name -> its tensor
        total = 0.0
        # The backward graph's outputs: one gradient per forward placeholder,
        # parameters first, in the same order.
        for i, (pname, p) in enumerate(params):
            node = bw_output_nodes[i] if i < len(bw_output_nodes) else None
            grad = bw_out[i] if i < len(bw_out) else None
            gname = names.get(node) if node is not None else None
            if grad is None or not isinstance(gname, str):
                continue  # no gradient (an unused or frozen parameter): no update
            param_bytes = int(p.numel() * p.element_size())
            state_bytes = state_factor * param_bytes
            seconds = measure_update(a.optimizer, p, grad, a.warmup, a.repeats)
            total += seconds
            idx, _ = w.add_op(f"{pname}/update", op_type_name, "update", inputs=[gname], source=("update", pname),
                              layer=w.layer_of(pname), flops=flops_per_element * p.numel(),
                              optimizer_state_bytes=state_bytes if state_bytes else None,
                              # Reads gradient, weights and state; writes weights and state (as training_step.cc).
                              memory_traffic_bytes=3 * param_bytes + 2 * state_bytes,
                              forward_op=w.ops[self.param_op[pname]]["name"],
                              measured_time_s={"cpu": seconds})
            self.update_op[pname] = idx
            self.grad_tensor[pname] = gname
            self.grad_node[pname] = node
        return total

    def _colocate(self, params):
        """Groups each Parameter op, its update op and the backward ops that produce its gradient.

        The gradient's producer is followed up through single-input view ops
        (t, view, reshape, ...) to the op that computes it. Parameters whose
        gradients come from one op (a convolution's weight and bias, a batch
        norm's weight and bias) end up in one group, named after the first.
        """
        w = self.writer
        parent = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        def union(x, y):
            rx, ry = find(x), find(y)
            if rx != ry:
                parent[max(rx, ry)] = min(rx, ry)

        for pname, _ in params:
            if pname not in self.param_op:
                continue
            p_idx = self.param_op[pname]
            find(p_idx)
            if pname in self.update_op:
                union(p_idx, self.update_op[pname])
            t = self.grad_tensor.get(pname)
            while t is not None and t in w.producer:
                op_idx = w.producer[t]
                op = w.ops[op_idx]
                if op.get("phase") != "backward":
                    break
                union(p_idx, op_idx)
                ins = op.get("inputs", [])
                t = ins[0] if op["type"] in VIEW_TYPES and len(ins) == 1 else None

        groups = {}
        for pname, _ in params:  # model order: a group is named after its first parameter
            if pname in self.param_op:
                groups.setdefault(find(self.param_op[pname]), pname)
        for idx in list(parent):
            root = find(idx)
            if root in groups:
                w.ops[idx]["colocation_group"] = groups[root]


VIEW_TYPES = {"t", "view", "_unsafe_view", "_reshape_alias", "reshape", "permute", "transpose", "squeeze",
              "unsqueeze", "expand", "alias", "as_strided", "contiguous", "clone"}


LEARNING_RATE = 1e-3  # of every update op (Adam: betas 0.9, 0.999, eps 1e-8; momentum: 0.9)


def make_updater(optimizer, like, lr=LEARNING_RATE):
    """One parameter's optimizer: returns update(weight, grad), which updates weight in place.

    The state (Adam's moments, the momentum buffer) is created on like's
    device. This is torch's single-tensor Adam/SGD, as torch.optim runs it
    with foreach=False. tools/measure_torch.py runs the update ops with it.
    """
    import torch
    from torch.optim.adam import adam
    from torch.optim.sgd import sgd
    if optimizer == "adam":
        m, v, step = torch.zeros_like(like), torch.zeros_like(like), torch.tensor(0.0)

        def update(weight, grad):
            adam([weight], [grad], [m], [v], [], [step], foreach=False, amsgrad=False, beta1=0.9, beta2=0.999,
                 lr=lr, weight_decay=0.0, eps=1e-8, maximize=False)
    else:
        bufs = [None]  # sgd creates the momentum buffer on the first step
        momentum = 0.9 if optimizer == "momentum" else 0.0

        def update(weight, grad):
            sgd([weight], [grad], bufs, foreach=False, weight_decay=0.0, momentum=momentum, lr=lr,
                dampening=0.0, nesterov=False, maximize=False)
    return update


def measure_update(optimizer, p, grad, warmup, repeats):
    """Median CPU seconds of one single-tensor update of a copy of parameter p."""
    import torch
    with torch.no_grad():
        weight = p.detach().clone()
        g = grad.detach().clone()
        update = make_updater(optimizer, weight)
        _, seconds = time_call(lambda: update(weight, g), max(warmup, 1 if optimizer == "momentum" else 0), repeats)
    return seconds


# ---------------------------------------------------------------------------
# Main


def check_writable(path):
    """Fails early (before minutes of export) when --out cannot be written."""
    if path == "-":
        return
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"--out '{path}': is a folder")
    if not os.path.isdir(folder):
        raise UsageError(f"--out '{path}': no such folder '{folder}'")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise UsageError(f"--out '{path}': not writable")


def write_output(doc, path):
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as e:
        raise UsageError(f"--out '{path}': cannot write: {e.strerror}")


class TrainingStep:
    """The traced training step: the model, its inputs and the forward and backward FX graphs."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


def build_training_step(args):
    """Seeds torch, builds the model and its inputs, picks the loss and traces the step.

    Everything here depends only on the options the export block records
    (export_block), so tools/measure_torch.py rebuilds the same step, with the
    same weights, inputs and labels, from them.
    """
    import torch
    torch.manual_seed(args.seed)
    if args.model_spec:
        model, inputs = load_user_function(args.model_spec)
        label = args.model_spec
    else:
        model, inputs = load_torchvision(args)
        label = args.model_name
    model.train()
    batch = int(inputs[0].shape[0]) if inputs[0].dim() > 0 else 1

    # An eager forward first: a model that cannot run on this input is the user's error.
    try:
        with torch.no_grad():
            out = model(*inputs)
    except Exception as e:
        if args.model_spec:
            raise UsageError(f"model '{label}' fails on its example input: {first_line(e)}")
        raise UsageError(f"model '{label}' fails at --batch {args.batch} --image-size {args.image_size}: "
                         f"{first_line(e)} (try another --image-size)")
    loss_kind = choose_loss(args.loss, out, batch)
    num_classes = None
    user_inputs = list(inputs)
    if loss_kind == "cross_entropy":
        num_classes = int(output_leaves(out)[0].shape[1])
        user_inputs.append(torch.randint(0, num_classes, (batch,)))
    if not any(p.requires_grad for p in model.parameters()):
        raise UsageError(f"model '{label}' has no trainable parameters: nothing to update")

    loss_module = make_loss_module(model, loss_kind, num_classes)
    try:
        fw, bw = capture(loss_module, model, user_inputs)
    except UsageError:
        raise
    except Exception as e:
        raise RuntimeError(f"aot_module could not trace model '{label}': {first_line(e)}") from e
    return TrainingStep(model=model, inputs=inputs, user_inputs=user_inputs, loss_kind=loss_kind,
                        label=label, fw=fw, bw=bw)


EXPORT_BLOCK_VERSION = 1


def export_block(args, step):
    """The document's "export" block: what rebuilds this traced step (docs/formats.md)."""
    import torch
    try:
        import torchvision
        torchvision_version = torchvision.__version__
    except ImportError:
        torchvision_version = None
    return {
        "tool": PROG,
        "version": EXPORT_BLOCK_VERSION,
        "model": args.model_name,
        "model_spec": args.model_spec,
        "model_spec_dir": os.getcwd() if args.model_spec else None,
        # torchvision models only (a --model function builds its own input):
        "batch": None if args.model_spec else args.batch,
        "image_size": None if args.model_spec else args.image_size,
        "num_classes": None if args.model_spec else args.num_classes,  # null: the model's default
        "loss": step.loss_kind,  # as chosen ("auto" resolved)
        "optimizer": args.optimizer,
        "learning_rate": LEARNING_RATE,
        "seed": args.seed,
        "torch": torch.__version__,
        "torchvision": torchvision_version,
    }


def run(argv):
    args = parse_args(argv)
    warnings.filterwarnings("ignore")
    import torch
    if args.list_models:
        print("\n".join(torchvision_models()))
        return 0
    check_writable(args.out)
    if args.threads is not None:
        torch.set_num_threads(args.threads)

    step = build_training_step(args)
    label = step.label
    loss_kind = step.loss_kind
    exporter = Exporter(args, step.model, step.inputs, loss_kind)
    totals = exporter.export(step.user_inputs, step.fw, step.bw)
    ops = exporter.writer.ops
    doc = {"format": "devplace-graph", "version": 1, "name": args.name or label, "ops": ops,
           "export": export_block(args, step)}
    write_output(doc, args.out)

    phases = {"forward": 0, "backward": 0, "update": 0}
    for op in ops:
        phases[op.get("phase", "forward")] += 1
    num_params = sum(1 for op in ops if op["type"] == "Parameter")
    param_bytes = sum(op.get("parameter_bytes", 0) for op in ops)
    total = sum(totals.values())
    print(f"{PROG}: {label}: {len(ops)} ops (forward {phases['forward']}, backward {phases['backward']}, "
          f"update {phases['update']}), {num_params} parameters ({param_bytes} bytes), loss {loss_kind}, "
          f"measured cpu {total:.6f} s (forward {totals['forward']:.6f}, backward {totals['backward']:.6f}, "
          f"update {totals['update']:.6f}; {torch.get_num_threads()} threads, median of {args.repeats})",
          file=sys.stderr)
    return 0


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        return run(argv)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 1
    except Exception as e:
        if "--debug" in argv:
            raise
        print(f"{PROG}: internal error: {first_line(e)} (rerun with --debug for a traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
