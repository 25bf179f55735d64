#!/usr/bin/python3
"""make_tf_fixtures.py: regenerates the TensorFlow test fixtures of tests/io/testdata/tf/.

There is no TensorFlow here: the files are built with devplace's own subset
of TensorFlow's protos (src/io/proto/*.proto, TensorFlow's field numbers),
compiled by protoc into a temporary folder and used from Python's protobuf
(Debian: protobuf-compiler, python3-protobuf). The same run writes the same
bytes, so the committed files can be checked against a fresh run:

  /usr/bin/python3 tools/make_tf_fixtures.py            # rewrite tests/io/testdata/tf/
  /usr/bin/python3 tools/make_tf_fixtures.py --check    # exit 1 if a committed file differs

The graph is what TensorFlow 1's tf.compat.v1 writes for a 2-layer MLP
trained with GradientDescentOptimizer (add_shapes=True, so every node has
_output_shapes), batch 32, 784 -> 128 (Relu) -> 10, softmax cross-entropy:

  mlp.pbtxt / mlp.pb     the GraphDef in text and binary form (the same graph).
                         Variables VariableV2 with Identity '/read' nodes and
                         ApplyGradientDescent updates co-located with them by
                         _class "loc:@VAR"; 'x' pinned to "/cpu:0",
                         'fc2/MatMul' to "/job:localhost/replica:0/task:0/device:GPU:1";
                         the final 'GradientDescent' NoOp has control inputs.
  mlp_run_metadata.pb    a RunMetadata whose StepStats time some nodes on the
                         CPU and on GPU 0: the launching thread's records, a
                         GPU tracer's "/stream:all" records (the kernels' times,
                         which replace them) and a "/stream:7" copy (skipped),
                         and TensorFlow's own _SOURCE node (not in the graph).
  mlp_cost_graph.pbtxt   a CostGraphDef in text form (compute_cost in microseconds).

Bad fixtures, each for one error message:

  truncated.pb           the first 1000 bytes of mlp.pb (cut inside a node)
  dangling_input.pbtxt   node 'relu' (#1) reads 'ghost', which no node is
  cycle.pbtxt            'a' -> 'b' -> 'a'
  unknown_device.pbtxt   a node pinned to "/device:GPU:7" (no such GPU on k80x4)
  bad_device.pbtxt       a node on "/device:TPU:0"
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "io", "testdata", "tf")


def import_protos(tmp):
    """Compiles src/io/proto/*.proto to Python in `tmp` and imports them."""
    # Compiled from src/io/proto itself, so that the modules are top-level
    # (tf_graph_pb2): under their source path, a package "io" would shadow Python's io.
    src = os.path.join(ROOT, "src", "io", "proto")
    pkg = os.path.join(tmp, "devplace_tf")
    os.makedirs(pkg)
    subprocess.run(["protoc", "-I", src, "--python_out", pkg, "tf_graph.proto", "tf_costs.proto"], check=True)
    open(os.path.join(pkg, "__init__.py"), "w").close()
    sys.path.insert(0, pkg)
    import tf_graph_pb2  # noqa: E402
    import tf_costs_pb2  # noqa: E402
    return tf_graph_pb2, tf_costs_pb2


class GraphWriter:
    """Builds a GraphDef node by node, as TensorFlow names and attributes them."""

    def __init__(self, pb):
        self.pb = pb
        self.graph = pb.GraphDef()
        self.graph.versions.producer = 27

    def attr(self, node, key):
        entry = node.attr.add()
        entry.key = key.encode()
        return entry.value

    def node(self, name, op, inputs=(), shapes=(), dtype=None, device="", colocate=None, t=True, extra=None):
        n = self.graph.node.add()
        n.name = name.encode()
        n.op = op.encode()
        for i in inputs:
            n.input.append(i.encode())
        if device:
            n.device = device.encode()
        # TensorFlow writes attrs sorted by key (its map); so do we.
        attrs = {}
        if t:
            attrs["T"] = ("type", self.pb.DT_FLOAT)
        if dtype is not None:
            attrs["dtype"] = ("type", dtype)
        if colocate:
            attrs["_class"] = ("strings", [("loc:@" + c).encode() for c in colocate])
        attrs["_output_shapes"] = ("shapes", shapes)
        for k, v in (extra or {}).items():
            attrs[k] = v
        for key in sorted(attrs):
            kind, value = attrs[key]
            a = self.attr(n, key)
            if kind == "type":
                a.type = value
            elif kind == "strings":
                a.list.s.extend(value)
            elif kind == "shapes":
                a.list.SetInParent()
                for dims in value:
                    s = a.list.shape.add()
                    for d in dims:
                        s.dim.add().size = d
            elif kind == "shape":
                for d in value:
                    a.shape.dim.add().size = d
            elif kind == "bool":
                a.b = value
            elif kind == "bytes":
                a.s = value
            elif kind == "tensor":
                dt, dims, field, values = value
                a.tensor.dtype = dt
                for d in dims:
                    a.tensor.tensor_shape.dim.add().size = d
                getattr(a.tensor, field).extend(values)
            else:
                raise ValueError(kind)
        return n

    def const(self, name, dt, dims, field, values):
        return self.node(name, "Const", shapes=[dims], dtype=dt, t=False,
                         extra={"value": ("tensor", (dt, dims, field, values))})

    def variable(self, name, dims):
        self.node(name, "VariableV2", shapes=[dims], dtype=self.pb.DT_FLOAT, t=False,
                  extra={"shape": ("shape", dims), "container": ("bytes", b""), "shared_name": ("bytes", b"")})
        self.node(name + "/read", "Identity", [name], shapes=[dims], colocate=[name])


def mlp_graph(pb):
    g = GraphWriter(pb)
    f, i32 = pb.DT_FLOAT, pb.DT_INT32
    batch, inputs, hidden, classes = 32, 784, 128, 10
    g.node("x", "Placeholder", shapes=[[batch, inputs]], dtype=f, t=False, device="/cpu:0",
           extra={"shape": ("shape", [batch, inputs])})
    g.node("labels", "Placeholder", shapes=[[batch, classes]], dtype=f, t=False,
           extra={"shape": ("shape", [batch, classes])})
    g.variable("fc1/w", [inputs, hidden])
    g.variable("fc1/b", [hidden])
    g.node("fc1/MatMul", "MatMul", ["x", "fc1/w/read"], [[batch, hidden]],
           extra={"transpose_a": ("bool", False), "transpose_b": ("bool", False)})
    g.node("fc1/BiasAdd", "BiasAdd", ["fc1/MatMul", "fc1/b/read"], [[batch, hidden]])
    g.node("fc1/Relu", "Relu", ["fc1/BiasAdd"], [[batch, hidden]])
    g.variable("fc2/w", [hidden, classes])
    g.variable("fc2/b", [classes])
    g.node("fc2/MatMul", "MatMul", ["fc1/Relu", "fc2/w/read"], [[batch, classes]],
           device="/job:localhost/replica:0/task:0/device:GPU:1",
           extra={"transpose_a": ("bool", False), "transpose_b": ("bool", False)})
    g.node("fc2/BiasAdd", "BiasAdd", ["fc2/MatMul", "fc2/b/read"], [[batch, classes]])
    g.node("loss/xent", "SoftmaxCrossEntropyWithLogits", ["fc2/BiasAdd", "labels"], [[batch], [batch, classes]])
    g.const("loss/Const", i32, [1], "int_val", [0])
    g.node("loss/Mean", "Mean", ["loss/xent", "loss/Const"], [[]], extra={"Tidx": ("type", i32)})
    # tf.gradients: the loss's gradient back to the weights.
    g.const("gradients/grad_ys_0", f, [], "float_val", [1.0])
    g.const("gradients/loss/Mean_grad/Const", i32, [1], "int_val", [batch])
    g.node("gradients/loss/Mean_grad/Fill", "Fill", ["gradients/loss/Mean_grad/Const", "gradients/grad_ys_0"], [[batch]],
           extra={"index_type": ("type", i32)})
    g.const("gradients/loss/Mean_grad/Cast", f, [], "float_val", [float(batch)])
    g.node("gradients/loss/Mean_grad/truediv", "RealDiv", ["gradients/loss/Mean_grad/Fill", "gradients/loss/Mean_grad/Cast"],
           [[batch]])
    g.const("gradients/loss/xent_grad/ExpandDims/dim", i32, [], "int_val", [-1])
    g.node("gradients/loss/xent_grad/ExpandDims", "ExpandDims",
           ["gradients/loss/Mean_grad/truediv", "gradients/loss/xent_grad/ExpandDims/dim"], [[batch, 1]],
           extra={"Tdim": ("type", i32)})
    g.node("gradients/loss/xent_grad/mul", "Mul", ["gradients/loss/xent_grad/ExpandDims", "loss/xent:1"], [[batch, classes]])
    g.node("gradients/fc2/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", ["gradients/loss/xent_grad/mul"], [[classes]])
    g.node("gradients/fc2/MatMul_grad/MatMul", "MatMul", ["gradients/loss/xent_grad/mul", "fc2/w/read"], [[batch, hidden]],
           extra={"transpose_a": ("bool", False), "transpose_b": ("bool", True)})
    g.node("gradients/fc2/MatMul_grad/MatMul_1", "MatMul", ["fc1/Relu", "gradients/loss/xent_grad/mul"], [[hidden, classes]],
           extra={"transpose_a": ("bool", True), "transpose_b": ("bool", False)})
    g.node("gradients/fc1/Relu_grad/ReluGrad", "ReluGrad", ["gradients/fc2/MatMul_grad/MatMul", "fc1/Relu"], [[batch, hidden]])
    g.node("gradients/fc1/BiasAdd_grad/BiasAddGrad", "BiasAddGrad", ["gradients/fc1/Relu_grad/ReluGrad"], [[hidden]])
    g.node("gradients/fc1/MatMul_grad/MatMul_1", "MatMul", ["x", "gradients/fc1/Relu_grad/ReluGrad"], [[inputs, hidden]],
           extra={"transpose_a": ("bool", True), "transpose_b": ("bool", False)})
    # GradientDescentOptimizer.apply_gradients: one update per variable, co-located with it.
    g.const("GradientDescent/learning_rate", f, [], "float_val", [0.01])
    updates = []
    for var, grad, dims in [("fc1/w", "gradients/fc1/MatMul_grad/MatMul_1", [inputs, hidden]),
                            ("fc1/b", "gradients/fc1/BiasAdd_grad/BiasAddGrad", [hidden]),
                            ("fc2/w", "gradients/fc2/MatMul_grad/MatMul_1", [hidden, classes]),
                            ("fc2/b", "gradients/fc2/BiasAdd_grad/BiasAddGrad", [classes])]:
        name = "GradientDescent/update_" + var + "/ApplyGradientDescent"
        g.node(name, "ApplyGradientDescent", [var, "GradientDescent/learning_rate", grad], [dims], colocate=[var],
               extra={"use_locking": ("bool", False)})
        updates.append(name)
    g.node("GradientDescent", "NoOp", ["^" + u for u in updates], [], t=False)
    return g.graph


def run_metadata(costs):
    m = costs.RunMetadata()

    def dev(name, records):
        d = m.step_stats.dev_stats.add()
        d.device = name.encode()
        for node, start, end, nanos in records:
            n = d.node_stats.add()
            n.node_name = node.encode()
            n.all_start_micros = 1000 + start
            if nanos:
                n.op_start_rel_nanos, n.op_end_rel_nanos = start, end
                n.op_start_rel_micros, n.op_end_rel_micros = start // 1000, end // 1000
            else:
                n.op_start_rel_micros, n.op_end_rel_micros = start, end
            n.all_end_rel_micros = n.op_end_rel_micros + 1

    dev("/job:localhost/replica:0/task:0/device:CPU:0",
        [("_SOURCE", 0, 1, False), ("x", 1, 3, False), ("labels", 1, 2, False)])
    dev("/job:localhost/replica:0/task:0/device:GPU:0",
        [("fc1/MatMul", 5, 125, False), ("fc1/Relu", 1000, 21500, True), ("fc2/MatMul", 10, 90, False)])
    dev("/device:GPU:0/stream:all", [("fc1/MatMul:MatMul", 200, 500, False)])
    dev("/device:GPU:0/stream:7", [("fc1/MatMul:MatMul", 200, 500, False)])
    return m


def cost_graph(costs):
    c = costs.CostGraphDef()
    for i, (name, micros) in enumerate([("fc1/MatMul", 900), ("fc2/MatMul", 120), ("_SINK", 0)]):
        n = c.node.add()
        n.name = name.encode()
        n.device = b"/job:localhost/replica:0/task:0/device:CPU:0"
        n.id = i
        n.compute_cost = micros
    return c


def small(pb, nodes):
    """A GraphDef from (name, op, inputs, device) tuples; placeholders are 2x3 floats."""
    g = pb.GraphDef()
    for name, op, inputs, device in nodes:
        n = g.node.add()
        n.name, n.op = name.encode(), op.encode()
        n.input.extend(i.encode() for i in inputs)
        if device:
            n.device = device.encode()
        if op == "Placeholder":  # a known shape, so that the graphs import without warnings
            a = n.attr.add()
            a.key = b"dtype"
            a.value.type = pb.DT_FLOAT
            a = n.attr.add()
            a.key = b"shape"
            a.value.shape.dim.add().size = 2
            a.value.shape.dim.add().size = 3
    return g


def fixtures():
    with tempfile.TemporaryDirectory() as tmp:
        pb, costs = import_protos(tmp)
        from google.protobuf import text_format
        graph = mlp_graph(pb)
        binary = graph.SerializeToString()
        files = {
            "mlp.pbtxt": text_format.MessageToString(graph, as_utf8=True).encode(),
            "mlp.pb": binary,
            "mlp_run_metadata.pb": run_metadata(costs).SerializeToString(),
            "mlp_cost_graph.pbtxt": text_format.MessageToString(cost_graph(costs), as_utf8=True).encode(),
            "truncated.pb": binary[:1000],
        }
        try:
            pb.GraphDef().ParseFromString(files["truncated.pb"])
            raise SystemExit("truncated.pb parses: cut it elsewhere")
        except Exception as e:  # DecodeError
            if isinstance(e, SystemExit):
                raise
        for name, nodes in [
            ("dangling_input.pbtxt", [("x", "Placeholder", [], ""), ("relu", "Relu", ["ghost"], "")]),
            ("cycle.pbtxt", [("a", "Relu", ["b"], ""), ("b", "Relu", ["a:0"], "")]),
            ("unknown_device.pbtxt", [("x", "Placeholder", [], ""), ("relu", "Relu", ["x"], "/device:GPU:7")]),
            ("bad_device.pbtxt", [("x", "Placeholder", [], ""), ("relu", "Relu", ["x"], "/device:TPU:0")]),
        ]:
            files[name] = text_format.MessageToString(small(pb, nodes), as_utf8=True).encode()
        return files


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the committed files instead of writing")
    args = parser.parse_args()
    files = fixtures()
    differ = []
    os.makedirs(OUT, exist_ok=True)
    for name, data in sorted(files.items()):
        path = os.path.join(OUT, name)
        if args.check:
            old = open(path, "rb").read() if os.path.exists(path) else None
            if old != data:
                differ.append(name)
            continue
        with open(path, "wb") as f:
            f.write(data)
        print(f"wrote {os.path.relpath(path, ROOT)} ({len(data)} bytes)")
    if args.check:
        if differ:
            print("differ from a fresh run: " + ", ".join(differ))
            return 1
        print(f"{len(files)} fixtures are what this script writes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
