#!/usr/bin/python3
"""File: tools/measure_torch.py

The reference measurer (docs/measurer.md): devplace's `--measure` runs it,
sends it placements of a graph that tools/export_torch.py wrote, and it
answers with measured training-step times.

On `hello` it reads the graph file's "export" block, rebuilds the same
training step with export_torch.py's own functions (same model, weights,
inputs, labels and FX graphs) and maps every devplace op name to what it
came from: a parameter, buffer or input, an FX node of the forward or
backward graph, the loss gradient seed, or a parameter's optimizer update.
On `measure` it runs whole training steps with each op on its placed device,
as a dataflow schedule: one worker thread per devplace device runs that
device's ops, each as soon as its inputs are ready (the lowest op index
first); tensors that cross between CUDA devices are moved with .to(). The
answer is the median wall time of `repeats` steps after `warmup` steps.

Devices: a devplace device of kind gpu runs on cuda:N (N from its name
"/gpu:N") when CUDA is available; a cpu device, and every device when CUDA
is not available or with --cpu-devices, is a CPU "device": its own worker
thread on the host. torch releases the GIL inside its kernels, so ops on
different CPU workers run in parallel. --device-map overrides the mapping
per device.

Run with /usr/bin/python3 (Debian's python3-torch 1.13):

    measure_torch.py [--cpu-devices] [--device-map /gpu:0=cuda:1,/cpu:0=cpu] [--threads-per-device 1]
                     [--pin-cores] [--no-malloc-tuning] [--quiet] [--debug]

stdout carries only protocol lines; logs go to stderr. Exit codes: 0 after
`bye` or end of input, 2 for bad command-line options (one line on stderr).
"""

import argparse
import contextlib
import json
import math
import os
import queue
import re
import statistics
import sys
import threading
import time
import traceback
import warnings

PROG = "measure_torch.py"
MEASURER = "measure_torch.py 1"
PROTOCOL = 1
HERE = os.path.dirname(os.path.abspath(__file__))

# Ops whose result may share storage with an input: an optimizer update of a
# weight waits for every op that reads the weight through any of these.
ALIAS_TYPES = {"t", "view", "_unsafe_view", "_reshape_alias", "reshape", "permute", "transpose", "squeeze",
               "unsqueeze", "expand", "expand_as", "view_as", "alias", "as_strided", "detach", "slice", "select",
               "narrow", "split", "split_with_sizes", "chunk", "unbind", "unfold", "diagonal", "flatten",
               "unflatten", "movedim", "contiguous", "clone", "_unsafe_split", "lift_fresh"}


class UsageError(Exception):
    """Bad command line: one line on stderr, exit code 2."""


class HelloError(Exception):
    """This graph cannot be measured on these devices: an `error` answer to hello."""


class PlacementError(Exception):
    """This placement cannot run: an `error` result."""


# ---------------------------------------------------------------------------
# Command line


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message + " (see --help)")


def parse_device_map(text):
    """'KEY=TARGET,...' -> list of (key, target); KEY a device name or index, TARGET cpu or cuda:N."""
    entries = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        key, sep, target = part.rpartition("=")
        key, target = key.strip(), target.strip()
        if not sep or not key:
            raise UsageError(f"--device-map: '{part}': expected DEVICE=TARGET, e.g. /gpu:0=cuda:1 or 1=cpu")
        if target != "cpu" and not re.fullmatch(r"cuda:\d+", target):
            raise UsageError(f"--device-map: '{part}': target '{target}' is not cpu or cuda:N")
        entries.append((int(key) if key.isdigit() else key, target))
    if not entries:
        raise UsageError("--device-map: empty")
    return entries


def parse_args(argv):
    p = _Parser(prog=PROG, description="The reference devplace measurer: runs placements of a graph written by "
                                       "tools/export_torch.py and answers with measured step times "
                                       "(protocol: docs/measurer.md, on stdin and stdout).")
    p.add_argument("--cpu-devices", action="store_true",
                   help="run every devplace device as a CPU worker thread, even where CUDA is available")
    p.add_argument("--device-map", metavar="DEV=TARGET,...", default=None,
                   help="map devplace devices (by name or index) to cpu or cuda:N, e.g. /gpu:0=cuda:1,/gpu:1=cuda:0")
    p.add_argument("--threads-per-device", type=int, default=1, metavar="N",
                   help="torch intra-op threads each worker's ops use (default 1); the setting is process-wide")
    p.add_argument("--pin-cores", action="store_true",
                   help="pin CPU worker k (and its intra-op threads) to the k-th group of --threads-per-device "
                        "cores the process may use, where there are enough")
    p.add_argument("--no-malloc-tuning", action="store_true",
                   help="leave glibc malloc as it is (by default freed tensor memory is kept for reuse: see "
                        "docs/measurer.md)")
    p.add_argument("--quiet", action="store_true", help="log only errors on stderr")
    p.add_argument("--debug", action="store_true", help="log Python tracebacks of failed placements on stderr")
    args = p.parse_args(argv)
    if args.threads_per_device < 1:
        raise UsageError(f"--threads-per-device: expected an integer >= 1, got {args.threads_per_device}")
    args.device_map = parse_device_map(args.device_map) if args.device_map is not None else []
    return args


def tune_malloc(log):
    """Makes glibc keep freed memory for reuse, as a caching allocator would.

    torch allocates CPU tensors with glibc malloc. By default glibc maps
    large blocks fresh and unmaps them on free, trims freed memory, and gives
    each thread its own arena, so every step pays page faults for its
    activations and optimizer temporaries, differently on each worker
    thread. One arena, no trimming and the largest mmap threshold glibc
    allows (32 MiB) make steady steps reuse their memory.
    """
    import ctypes
    import ctypes.util
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        log.info("not glibc: malloc left as it is")
        return
    m_trim_threshold, m_mmap_threshold, m_arena_max = -1, -3, -8
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    ok = [mallopt(m_arena_max, 1), mallopt(m_trim_threshold, 2**31 - 1), mallopt(m_mmap_threshold, 32 << 20)]
    if not all(ok):
        log.info(f"mallopt refused some settings ({ok}): malloc partly tuned")


def first_line(e):
    text = str(e).strip().splitlines()
    msg = f"{type(e).__name__}: {text[0] if text else ''}".rstrip(": ")
    return msg if len(msg) <= 300 else msg[:297] + "..."


class Log:
    def __init__(self, quiet):
        self.quiet = quiet

    def info(self, text):
        if not self.quiet:
            self.error(text)

    def error(self, text):
        print(f"{PROG}: {text}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Rebuilding the exported training step


def import_exporter():
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import export_torch
    return export_torch


@contextlib.contextmanager
def working_directory(path):
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def exporter_argv(block, where):
    """The export_torch.py command line that rebuilds the step the block describes."""
    model, spec = block.get("model"), block.get("model_spec")
    if bool(model) == bool(spec):
        raise HelloError(f"{where}: names neither 'model' nor 'model_spec' (or both)")
    argv = [str(model)] if model else ["--model", str(spec)]
    for key, flag in (("batch", "--batch"), ("image_size", "--image-size"), ("num_classes", "--num-classes"),
                      ("loss", "--loss"), ("optimizer", "--optimizer"), ("seed", "--seed")):
        if block.get(key) is not None:
            argv += [flag, str(block[key])]
    # The rebuild times nothing worth keeping: one untimed pass over the ops.
    return argv + ["--warmup", "0", "--repeats", "1"]


class Rebuilt:
    """The rebuilt step: export_torch.py's Exporter after one pass, and the graph file's facts."""

    def __init__(self, source, block, exporter, step, file_ops, seconds):
        self.source = source
        self.block = block
        self.exporter = exporter
        self.step = step
        self.file_ops = file_ops
        self.seconds = seconds


def rebuild(source):
    """Reads a graph file written by export_torch.py and rebuilds its training step."""
    base = os.path.basename(source)
    if source.startswith("zoo:"):
        raise HelloError(f"graph {source}: a zoo model; measure_torch.py measures graphs written by "
                         f"tools/export_torch.py")
    try:
        with open(source) as f:
            doc = json.load(f)
    except OSError as e:
        raise HelloError(f"graph {source}: cannot read it: {e.strerror}")
    except ValueError as e:
        raise HelloError(f"graph {source}: not JSON: {first_line(e)}")
    if not isinstance(doc, dict) or doc.get("format") != "devplace-graph" or not isinstance(doc.get("ops"), list):
        raise HelloError(f"graph {base}: not a devplace graph JSON file")
    block = doc.get("export")
    if not isinstance(block, dict):
        raise HelloError(f"graph {base}: no 'export' block; export it with tools/export_torch.py")
    et = import_exporter()
    where = f"graph {base}: export block"
    if block.get("tool") != et.PROG:
        raise HelloError(f"{where}: written by '{block.get('tool')}', not {et.PROG}")
    if not isinstance(block.get("version"), int) or block["version"] > et.EXPORT_BLOCK_VERSION:
        raise HelloError(f"{where}: version {block.get('version')!r}; this measurer reads version "
                         f"{et.EXPORT_BLOCK_VERSION}")
    try:
        args = et.parse_args(exporter_argv(block, where))
    except et.UsageError as e:
        raise HelloError(f"{where}: {e}".replace(" (see --help)", ""))
    spec_dir = block.get("model_spec_dir")
    if block.get("model_spec") and not (isinstance(spec_dir, str) and os.path.isdir(spec_dir)):
        raise HelloError(f"{where}: model_spec_dir {spec_dir!r} is not a folder (the --model module is imported "
                         f"from it)")

    import torch
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with working_directory(spec_dir) if block.get("model_spec") else contextlib.nullcontext():
                step = et.build_training_step(args)
            exporter = et.Exporter(args, step.model, step.inputs, step.loss_kind)
            exporter.export(step.user_inputs, step.fw, step.bw)
    except et.UsageError as e:
        raise HelloError(f"graph {base}: cannot rebuild the model: {e}")
    except Exception as e:
        raise HelloError(f"graph {base}: cannot rebuild the model: {first_line(e)}")
    seconds = time.perf_counter() - t0

    rebuilt = [op["name"] for op in exporter.writer.ops]
    file_ops = [op.get("name") for op in doc["ops"] if isinstance(op, dict)]
    if rebuilt != file_ops:
        k = next((i for i, (a, b) in enumerate(zip(rebuilt, file_ops)) if a != b), min(len(rebuilt), len(file_ops)))
        here = f"'{rebuilt[k]}'" if k < len(rebuilt) else "nothing"
        there = f"'{file_ops[k]}'" if k < len(file_ops) else "nothing"
        raise HelloError(f"graph {base}: the rebuilt training step differs from the file ({len(rebuilt)} ops vs "
                         f"{len(file_ops)}; op {k} is {here} here, {there} in the file; exported with torch "
                         f"{block.get('torch')}, this is torch {torch.__version__})")
    return Rebuilt(source, block, exporter, step, file_ops, seconds)


# ---------------------------------------------------------------------------
# The program: one unit per devplace op, in hello's op order


class Ref:
    """An input of a unit: the value of unit `unit`, then `path` (("item", k) or ("detach",)) applied."""
    __slots__ = ("unit", "path")

    def __init__(self, unit, path):
        self.unit = unit
        self.path = path


class Slot:
    """A marker in an op's argument template: the op's k-th input."""
    __slots__ = ("k",)

    def __init__(self, k):
        self.k = k


class DeviceSlot:
    """A marker in an op's argument template: the device the op runs on (for factory ops' device=)."""


class Unit:
    __slots__ = ("index", "name", "kind", "fx", "target", "template", "refs", "param", "updater_key",
                 "host_value", "deps", "succ", "consumers")

    def __init__(self, index, name, kind):
        self.index = index
        self.name = name
        self.kind = kind  # param, buffer, input, const, node, tangent, update
        self.fx = None
        self.target = None
        self.template = None  # (args, kwargs) with Slot / DeviceSlot markers
        self.refs = []  # the inputs, as Refs
        self.param = None  # update: the unit of its Parameter op
        self.host_value = None  # param / buffer / input / const: the rebuilt tensor (host)
        self.deps = set()  # units that must finish first (data and control)
        self.succ = []  # units that wait for this one
        self.consumers = 0  # units that read this one's value


def make_template(value, slots, ref_of):
    import torch
    import torch.fx
    if isinstance(value, torch.fx.Node):
        slots.append(ref_of(value))
        return Slot(len(slots) - 1)
    if isinstance(value, torch.device):
        return DeviceSlot()
    if isinstance(value, tuple):
        return tuple(make_template(v, slots, ref_of) for v in value)
    if isinstance(value, list):
        return [make_template(v, slots, ref_of) for v in value]
    if isinstance(value, dict):
        return {k: make_template(v, slots, ref_of) for k, v in value.items()}
    return value


def fill_template(value, inputs, device):
    t = type(value)
    if t is Slot:
        return inputs[value.k]
    if t is DeviceSlot:
        return device
    if t is tuple:
        return tuple(fill_template(v, inputs, device) for v in value)
    if t is list:
        return [fill_template(v, inputs, device) for v in value]
    if t is dict:
        return {k: fill_template(v, inputs, device) for k, v in value.items()}
    return value


class Program:
    """The placement-independent schedule of one training step over hello's op order."""

    def __init__(self, rebuilt, op_names):
        et = import_exporter()
        ex = rebuilt.exporter
        base = os.path.basename(rebuilt.source)
        self.optimizer = rebuilt.block.get("optimizer", "adam")
        self.learning_rate = float(rebuilt.block.get("learning_rate", et.LEARNING_RATE))
        self.seed = int(rebuilt.block.get("seed") or 0)
        sources = ex.writer.sources

        seen = {}
        for i, name in enumerate(op_names):
            if not isinstance(name, str):
                raise HelloError(f"graph.ops[{i}]: expected an op name, got {json.dumps(name)}")
            if name in seen:
                raise HelloError(f"graph.ops[{i}]: op '{name}' is listed twice (also graph.ops[{seen[name]}])")
            if name not in sources:
                raise HelloError(f"graph.ops[{i}]: op '{name}' is not an op of {base}'s training step "
                                 f"(no parameter, buffer, input, FX node or update of that name)")
            seen[name] = i
        missing = [n for n in rebuilt.file_ops if n not in seen]
        if missing:
            raise HelloError(f"graph.ops lacks {len(missing)} of the {len(rebuilt.file_ops)} ops of {base} "
                             f"(first: '{missing[0]}'); every op needs a device")

        self.units = []
        unit_of_node = {}  # fx node (either graph) -> unit index
        unit_of_param = {}  # parameter name -> unit index of its Parameter op
        for i, name in enumerate(op_names):
            src = sources[name]
            if src[0] == "placeholder":
                node = src[1]
                kind, pname = ex.role_of[node]
                u = Unit(i, name, {"param": "param", "buffer": "buffer", "input": "input"}[kind])
                u.host_value = ex.primal_of[node]
                if kind == "param":
                    unit_of_param[pname] = i
                unit_of_node[node] = i
            elif src[0] in ("forward", "backward"):
                node = src[1]
                if node.op == "get_attr":
                    u = Unit(i, name, "const")
                    obj = ex.fw if src[0] == "forward" else ex.bw
                    for part in node.target.split("."):
                        obj = getattr(obj, part)
                    u.host_value = obj
                else:
                    u = Unit(i, name, "node")
                    u.target = node.target
                u.fx = node
                unit_of_node[node] = i
            elif src[0] == "tangent":
                u = Unit(i, name, "tangent")
                u.fx = src[2]
                unit_of_node[src[2]] = i
            elif src[0] == "update":
                u = Unit(i, name, "update")
                u.updater_key = src[1]
            else:
                raise HelloError(f"op '{name}': unknown origin {src[0]!r}")
            self.units.append(u)

        def ref_of(node):
            path = []
            n = node
            while True:
                if n in unit_of_node:
                    return Ref(unit_of_node[n], tuple(reversed(path)))
                if et.is_getitem(n):
                    path.append(("item", n.args[1]))
                    n = n.args[0]
                elif et.is_alias(n):
                    path.append(("detach",))
                    n = n.args[0]
                elif n in ex.saved_source:
                    n = ex.saved_source[n]
                else:
                    raise HelloError(f"graph {base}: FX node '{n.name}' (read by '{node.name}') maps to no op")

        for u in self.units:
            if u.kind == "node":
                slots = []
                u.template = (make_template(tuple(u.fx.args), slots, ref_of),
                              make_template(dict(u.fx.kwargs), slots, ref_of))
                u.refs = slots
            elif u.kind == "tangent":
                u.refs = [ref_of(ex.loss_nodes[int(sources[u.name][1])])]
            elif u.kind == "update":
                pname = u.updater_key
                u.param = unit_of_param[pname]
                u.refs = [ref_of(ex.grad_node[pname])]
            for r in u.refs:
                if r.unit != u.index:
                    u.deps.add(r.unit)

        # In-place updates: a weight's update waits for every op that reads
        # the weight directly or through a view of it (saved for backward too).
        users = {}
        for n, src in ex.saved_source.items():
            users.setdefault(src, []).append(n)
        for u in self.units:
            if u.kind != "update":
                continue
            start = next(n for n, i in unit_of_node.items() if i == u.param)
            closure, stack = {start}, [start]
            while stack:
                n = stack.pop()
                for m in list(n.users) + users.get(n, []):
                    if m.op == "output" or m in closure:
                        continue
                    if m.op == "placeholder" or et.is_getitem(m) or et.is_alias(m) or \
                            et.op_type(m.target) in ALIAS_TYPES:
                        closure.add(m)
                        stack.append(m)
                    if m in unit_of_node and unit_of_node[m] != u.index:
                        u.deps.add(unit_of_node[m])

        for u in self.units:
            for d in u.deps:
                self.units[d].succ.append(u.index)
            for d in {r.unit for r in u.refs} | ({u.param} if u.param is not None else set()):
                self.units[d].consumers += 1
        self.roots = [u.index for u in self.units if not u.deps]
        self.check_acyclic()

    def check_acyclic(self):
        pending = [len(u.deps) for u in self.units]
        ready = list(self.roots)
        done = 0
        while ready:
            i = ready.pop()
            done += 1
            for s in self.units[i].succ:
                pending[s] -= 1
                if pending[s] == 0:
                    ready.append(s)
        if done != len(self.units):
            stuck = next(u.name for u, p in zip(self.units, pending) if p)
            raise HelloError(f"internal: the schedule has a cycle (at op '{stuck}')")


# ---------------------------------------------------------------------------
# Devices and workers


class Target:
    """Where one devplace device's ops run: its torch device and its worker thread."""

    def __init__(self, index, name, torch_device):
        self.index = index
        self.name = name
        self.device = torch_device
        self.is_cuda = torch_device.type == "cuda"
        self.queue = queue.PriorityQueue()
        self.thread = None
        self.cores = None  # a CPU worker pinned to these host cores, or None

    def describe(self):
        if self.is_cuda:
            return f"{self.name} -> {self.device}"
        where = f" on core{'s' if len(self.cores) > 1 else ''} {','.join(map(str, self.cores))}" if self.cores else ""
        return f"{self.name} -> cpu worker{where}"


def map_devices(devices, opts, log):
    import torch
    if not isinstance(devices, list) or not devices:
        raise HelloError("devices: expected a non-empty list")
    names = []
    for i, d in enumerate(devices):
        if not isinstance(d, dict) or not isinstance(d.get("name"), str) or d.get("kind") not in ("cpu", "gpu"):
            raise HelloError(f"devices[{i}]: expected {{\"name\": ..., \"kind\": \"cpu\" or \"gpu\"}}")
        names.append(d["name"])
    explicit = {}
    for key, target in opts.device_map:
        if isinstance(key, int):
            if key >= len(devices):
                raise HelloError(f"--device-map: device index {key}: the cluster has {len(devices)} devices")
            idx = key
        elif key in names:
            idx = names.index(key)
        else:
            raise HelloError(f"--device-map: no device '{key}' (devices: {', '.join(names)})")
        explicit[idx] = target
    cuda_count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if cuda_count == 0 and not opts.cpu_devices and any(d["kind"] == "gpu" for d in devices):
        log.info("no CUDA device: every device runs as a CPU worker")
    targets = []
    gpu_ordinal = 0
    for i, d in enumerate(devices):
        if i in explicit:
            spec = explicit[i]
        elif opts.cpu_devices or cuda_count == 0 or d["kind"] == "cpu":
            spec = "cpu"
        else:
            m = re.search(r"gpu:(\d+)$", d["name"])
            spec = f"cuda:{m.group(1) if m else gpu_ordinal}"
        if d["kind"] == "gpu":
            gpu_ordinal += 1
        if spec.startswith("cuda:"):
            n = int(spec[5:])
            if n >= cuda_count:
                raise HelloError(f"device {d['name']}: no CUDA device {spec} ({cuda_count} visible); use "
                                 f"--device-map or --cpu-devices")
        targets.append(Target(i, d["name"], torch.device(spec)))
    pin_cpu_workers(targets, opts, log)
    return targets


def pin_cpu_workers(targets, opts, log):
    """Gives each CPU worker its own threads_per_device host cores, where there are enough."""
    workers = [t for t in targets if not t.is_cuda]
    if not workers or not opts.pin_cores or not hasattr(os, "sched_getaffinity"):
        return
    cores = sorted(os.sched_getaffinity(0))
    per = opts.threads_per_device
    if len(workers) * per > len(cores):
        log.info(f"not pinning: {len(workers)} CPU workers x {per} threads > {len(cores)} cores")
        return
    for k, t in enumerate(workers):
        t.cores = cores[k * per:(k + 1) * per]


def is_oom(e):
    import torch
    if isinstance(e, getattr(torch.cuda, "OutOfMemoryError", ())) or isinstance(e, MemoryError):
        return True
    text = str(e)
    return isinstance(e, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text
                                            or "not enough memory" in text)


class StepRun:
    """The state of one running training step."""

    def __init__(self, program, state, generation):
        self.program = program
        self.state = state
        self.generation = generation
        self.lock = threading.Lock()
        self.pending = [len(u.deps) for u in program.units]
        self.consumers = [u.consumers for u in program.units]
        self.remaining = len(program.units)
        self.in_flight = 0
        self.values = {}
        self.moved = {}  # (unit, path, device) -> a copy on another device
        self.error = None  # (unit index, exception, traceback text)
        self.finished = threading.Event()

    def enqueue(self, i):  # with self.lock held
        self.in_flight += 1
        target = self.state.target_of[i]
        target.queue.put((i, self.generation, self))


class PlacementState:
    """Per placement: the device of each op, the weights and optimizer state on their devices."""

    def __init__(self, program, targets, placement, et):
        import torch
        self.target_of = [targets[d] for d in placement]
        self.tensors = {}  # unit -> its persistent tensor on its device (param, buffer, const)
        self.updaters = {}
        with torch.no_grad():
            for u in program.units:
                dev = self.target_of[u.index].device
                if u.kind in ("param", "buffer", "const") and u.host_value is not None:
                    self.tensors[u.index] = u.host_value.detach().to(dev, copy=True)
            for u in program.units:
                if u.kind == "update":
                    dev = self.target_of[u.index].device
                    like = self.tensors[u.param]
                    self.updaters[u.index] = et.make_updater(program.optimizer, like if like.device == dev
                                                             else torch.empty_like(like, device=dev),
                                                             program.learning_rate)


class Runner:
    """Runs training steps of a program on the targets' worker threads."""

    def __init__(self, program, targets, threads_per_device):
        self.program = program
        self.targets = targets
        self.threads_per_device = threads_per_device
        self.generation = 0
        self.et = import_exporter()
        for t in targets:
            t.thread = threading.Thread(target=self._worker, args=(t,), name=f"worker {t.name}", daemon=True)
            t.thread.start()

    # -- worker side

    def _worker(self, target):
        import torch
        torch.set_grad_enabled(False)  # grad mode is per thread
        if target.cores:  # before torch starts this thread's intra-op threads: they inherit it
            os.sched_setaffinity(0, target.cores)
        torch.set_num_threads(self.threads_per_device)
        if target.is_cuda:
            torch.cuda.set_device(target.device)
        while True:
            i, generation, run = target.queue.get()
            if run is None:
                return
            failed = False
            if run.error is None:
                try:
                    self._run_unit(run, i, target)
                except BaseException as e:  # report it, keep the worker alive
                    failed = True
                    with run.lock:
                        if run.error is None:
                            tb = traceback.format_exc()
                            e.__traceback__ = None  # keeps no frames (and their tensors) alive
                            run.error = (i, e, tb)
                        run.in_flight -= 1
                        if run.in_flight == 0:
                            run.finished.set()
                    del e
            if not failed:
                self._complete(run, i)
            run = None  # hold no step (its tensors) while waiting for the next op

    def _complete(self, run, i):
        units = self.program.units
        u = units[i]
        with run.lock:
            run.in_flight -= 1
            if run.error is not None:
                if run.in_flight == 0:
                    run.finished.set()
                return
            for d in {r.unit for r in u.refs} | ({u.param} if u.param is not None else set()):
                run.consumers[d] -= 1
                if run.consumers[d] == 0:
                    run.values.pop(d, None)
                    for key in [k for k in run.moved if k[0] == d] if run.moved else ():
                        del run.moved[key]
            if u.consumers == 0:
                run.values.pop(i, None)
            for s in u.succ:
                run.pending[s] -= 1
                if run.pending[s] == 0:
                    run.enqueue(s)
            run.remaining -= 1
            if run.remaining == 0:
                run.finished.set()

    def _fetch(self, run, ref, device):
        import torch
        v = run.values[ref.unit]
        for step in ref.path:
            v = v[step[1]] if step[0] == "item" else v.detach()
        if isinstance(v, torch.Tensor) and v.device != device:
            key = (ref.unit, ref.path, device)
            moved = run.moved.get(key)
            if moved is None:
                moved = v.to(device)
                run.moved[key] = moved
            v = moved
        return v

    def _run_unit(self, run, i, target):
        import torch
        u = self.program.units[i]
        dev = target.device
        kind = u.kind
        if kind == "node":
            inputs = [self._fetch(run, r, dev) for r in u.refs]
            args, kwargs = u.template
            run.values[i] = u.target(*fill_template(args, inputs, dev), **fill_template(kwargs, inputs, dev))
        elif kind in ("param", "buffer", "const"):
            run.values[i] = run.state.tensors[i]
        elif kind == "input":
            # Data arrives on the host; an input placed on a GPU copies it there.
            run.values[i] = u.host_value.to(dev) if target.is_cuda else u.host_value
        elif kind == "tangent":
            run.values[i] = torch.ones_like(self._fetch(run, u.refs[0], dev))
        elif kind == "update":
            grad = self._fetch(run, u.refs[0], dev)
            weight = run.state.tensors[u.param]
            update = run.state.updaters[i]
            if weight.device == dev:
                update(weight, grad)
            else:  # the weight lives with its Parameter op: update a copy here, write it back
                local = weight.to(dev)
                update(local, grad)
                weight.copy_(local)
        else:
            raise RuntimeError(f"unknown unit kind {kind}")

    # -- main side

    def step(self, state):
        """Runs one training step; returns its wall time in seconds, or raises the first op failure."""
        import torch
        self.generation += 1
        run = StepRun(self.program, state, self.generation)
        cuda = {t.device for t in self.targets if t.is_cuda}
        for d in cuda:
            torch.cuda.synchronize(d)
        t0 = time.perf_counter()
        with run.lock:
            for i in self.program.roots:
                run.enqueue(i)
        run.finished.wait()
        if run.error is None:
            for d in cuda:
                torch.cuda.synchronize(d)
        t1 = time.perf_counter()
        if run.error is not None:
            i, e, tb = run.error
            run.values.clear()
            run.moved.clear()
            raise OpFailure(self.program.units[i], state.target_of[i], e, tb)
        return t1 - t0

    def stop(self):
        for t in self.targets:
            t.queue.put((-1, 0, None))
        for t in self.targets:
            t.thread.join(timeout=5)


class OpFailure(Exception):
    def __init__(self, unit, target, error, tb):
        super().__init__(f"op {unit.name} on {target.name}: {first_line(error)}")
        self.unit = unit
        self.target = target
        self.error = error
        self.tb = tb


# ---------------------------------------------------------------------------
# The protocol loop


class Measurer:
    def __init__(self, opts, out, log):
        self.opts = opts
        self.out = out
        self.log = log
        self.runner = None
        self.warmup = 2
        self.repeats = 5

    def send(self, obj):
        self.out.write(json.dumps(obj, allow_nan=False) + "\n")
        self.out.flush()

    def serve(self, stdin):
        while True:
            line = stdin.readline()
            if not line:
                self.log.info("end of input: exiting")
                return 0
            if not line.strip():
                continue
            try:
                msg = json.loads(line)
            except ValueError as e:
                self.send({"type": "error", "message": f"not a JSON line: {first_line(e)}"})
                continue
            kind = msg.get("type") if isinstance(msg, dict) else None
            if kind == "hello":
                self.send(self.hello(msg))
            elif kind == "measure":
                self.send(self.measure(msg))
            elif kind == "bye":
                self.log.info("bye")
                return 0
            else:
                self.send({"type": "error", "message": f"unknown message type {json.dumps(kind)} "
                                                       f"(expected hello, measure or bye)"})

    # -- hello

    def hello(self, msg):
        if self.runner is not None:
            self.runner.stop()
            self.runner = None
        try:
            self._hello(msg)
        except HelloError as e:
            self.log.error(f"hello: {e}")
            return {"type": "error", "message": str(e)}
        except Exception as e:
            if self.opts.debug:
                traceback.print_exc()
            self.log.error(f"hello: {first_line(e)}")
            return {"type": "error", "message": f"internal error: {first_line(e)}"}
        return {"type": "ready", "measurer": MEASURER}

    def _hello(self, msg):
        if msg.get("protocol") != PROTOCOL:
            raise HelloError(f"protocol {json.dumps(msg.get('protocol'))}: this measurer speaks protocol {PROTOCOL}")
        graph = msg.get("graph")
        if not isinstance(graph, dict) or not isinstance(graph.get("source"), str) or \
                not isinstance(graph.get("ops"), list):
            raise HelloError("graph: expected {\"source\": ..., \"ops\": [...]}")
        for key, low in (("warmup", 0), ("repeats", 1)):
            v = msg.get(key, getattr(self, key))
            if not isinstance(v, int) or isinstance(v, bool) or v < low:
                raise HelloError(f"{key}: expected an integer >= {low}, got {json.dumps(v)}")
            setattr(self, key, v)
        targets = map_devices(msg.get("devices"), self.opts, self.log)
        source = graph["source"]
        if not source.startswith("zoo:"):
            source = os.path.abspath(source)
        rebuilt = rebuild(source)
        program = Program(rebuilt, graph["ops"])
        self.program = program
        self.runner = Runner(program, targets, self.opts.threads_per_device)
        self.log.info(f"ready: {rebuilt.block.get('model') or rebuilt.block.get('model_spec')} "
                      f"({len(program.units)} ops) from {os.path.basename(source)}, rebuilt in "
                      f"{rebuilt.seconds:.1f} s; {'; '.join(t.describe() for t in targets)}; "
                      f"{self.opts.threads_per_device} intra-op thread(s) per device; "
                      f"warmup {self.warmup}, repeats {self.repeats}")

    # -- measure

    def measure(self, msg):
        mid = msg.get("id")
        answer = {"type": "result", "id": mid}
        failure = None
        try:
            placement = self._check_placement(msg)
            samples, peaks = self._measure(placement)
        except PlacementError as e:
            failure = dict(answer, status="error", message=str(e))
        except OpFailure as e:
            if self.opts.debug:
                sys.stderr.write(e.tb)
            if is_oom(e.error):
                failure = dict(answer, status="oom", device=e.target.name, message=str(e))
            else:
                failure = dict(answer, status="error", message=str(e))
        except Exception as e:  # a failure outside any op (setup, synchronize)
            if self.opts.debug:
                traceback.print_exc()
            if is_oom(e):
                failure = dict(answer, status="oom", device=self._oom_device(e), message=first_line(e))
            else:
                failure = dict(answer, status="error", message=first_line(e))
        if failure is not None:
            # Outside the except blocks: the exception and the frames holding
            # the placement's tensors are gone, so their memory can be freed.
            self._cleanup()
            where = f" on {failure['device']}" if "device" in failure else ""
            self.log.error(f"measure {mid}: {failure['status']}{where}: {failure['message']}")
            return failure
        step = statistics.median(samples)
        if not (math.isfinite(step) and step > 0):
            return dict(answer, status="error", message=f"measured a step time of {step} s")
        used = sorted(set(placement))
        self.log.info(f"measure {mid}: ok {step:.6f} s (median of {len(samples)}, "
                      f"min {min(samples):.6f}, max {max(samples):.6f}; devices used {used})")
        answer.update(status="ok", step_time_s=step, samples_s=samples)
        if peaks is not None:
            answer["peak_memory_bytes"] = peaks
        return answer

    def _check_placement(self, msg):
        if not isinstance(msg.get("id"), int):
            raise PlacementError(f"id: expected an integer, got {json.dumps(msg.get('id'))}")
        if self.runner is None:
            raise PlacementError("no graph: the hello failed or was not sent")
        placement = msg.get("placement")
        n, ndev = len(self.program.units), len(self.runner.targets)
        if not isinstance(placement, list):
            raise PlacementError("placement: expected a list of device indices")
        if len(placement) != n:
            raise PlacementError(f"placement: {len(placement)} entries for {n} ops")
        for i, d in enumerate(placement):
            if not isinstance(d, int) or isinstance(d, bool) or not 0 <= d < ndev:
                raise PlacementError(f"placement[{i}] (op {self.program.units[i].name}): {json.dumps(d)} is not a "
                                     f"device index 0..{ndev - 1}")
        return placement

    def _measure(self, placement):
        import torch
        runner = self.runner
        et = import_exporter()
        # Every placement starts from the exported weights and the same random
        # state (dropout masks and other random ops draw from it).
        torch.manual_seed(int(self.program.seed))
        with torch.no_grad():
            state = PlacementState(self.program, runner.targets, placement, et)
            for _ in range(self.warmup):
                runner.step(state)
            cuda = sorted({t.device.index for t in runner.targets if t.is_cuda})
            one_to_one = len(cuda) == len(runner.targets)
            if one_to_one:
                for d in cuda:
                    torch.cuda.reset_peak_memory_stats(d)
            samples = [runner.step(state) for _ in range(self.repeats)]
            peaks = [int(torch.cuda.max_memory_allocated(t.device)) for t in runner.targets] if one_to_one else None
        del state
        self._cleanup()
        return samples, peaks

    def _oom_device(self, e):
        m = re.search(r"GPU (\d+)", str(e))
        if m and self.runner:
            for t in self.runner.targets:
                if t.is_cuda and t.device.index == int(m.group(1)):
                    return t.name
        return self.runner.targets[0].name if self.runner else "?"

    def _cleanup(self):
        import gc
        import torch
        gc.collect()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    try:
        opts = parse_args(argv)
    except UsageError as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    # stdout carries only protocol lines: keep a private handle on it and send
    # everything else that writes to fd 1 (torch, a user's model) to stderr.
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    log = Log(opts.quiet)
    warnings.filterwarnings("ignore")
    # A pthread OpenBLAS (Debian's torch) keeps its own thread pool, which
    # torch.set_num_threads does not size; it reads this when torch loads it.
    os.environ["OPENBLAS_NUM_THREADS"] = str(opts.threads_per_device)
    if not opts.no_malloc_tuning:
        tune_malloc(log)  # before torch allocates and before the worker threads start
    try:
        import torch
    except ImportError as e:
        log.error(f"cannot import torch ({first_line(e)}); run with /usr/bin/python3")
        out.write(json.dumps({"type": "error", "message": f"measure_torch.py: cannot import torch: {e}"}) + "\n")
        out.flush()
        return 1
    torch.set_num_threads(opts.threads_per_device)
    measurer = Measurer(opts, out, log)
    try:
        return measurer.serve(sys.stdin)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    sys.exit(main())
