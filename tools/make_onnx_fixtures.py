#!/usr/bin/python3
"""make_onnx_fixtures.py: regenerates the ONNX test fixtures of tests/io/testdata/onnx/.

Good fixtures are topology-only exports (export_params=False: weights become
graph inputs, no data is stored, so each file is a few KB) of small torch
models at a small fixed batch, in training mode (batch normalization stays a
BatchNormalization node instead of being folded into the convolution):

  resnet18.onnx        torchvision resnet18, batch 4, 3x224x224
  mobilenet_v2.onnx    torchvision mobilenet_v2, batch 2, 3x224x224 (depthwise convolutions)
  attention.onnx       one transformer encoder block (4 heads, d=64), batch 2, 16 tokens
  lstm.onnx            2-layer LSTM (32 -> 64), 10 steps, batch 4, and a Linear head
  symbolic_batch.onnx  a 2-layer MLP exported with a symbolic batch dimension
  layer_scale.onnx     a convolution and ConvNeXt's layer scale (a [C, 1, 1] parameter times the output)
  vit_expand.onnx      a class token expanded to the batch (x.expand(n, -1, -1), as ViT does), then a Linear
  constant_weights.onnx  a 2-layer MLP whose weights are Constant nodes (as Paddle2ONNX writes them);
                       expected.json holds its parameter bytes, counted by hand
  window_pad.onnx      Swin's window partition: a 1x7x7x8 map padded to whole 4x4 windows by pads
                       computed from its shape ((4 - 7 % 4) % 4, as Mod nodes), then viewed as windows
                       by the padded map's own shape, attention by Einsum with spaces in the equation
                       ("b w i c, b w j c -> b w i j", as MaxViT writes it), and a Linear
  shared_params.onnx   two LayerNorms and a Linear exported with their weights (export_params=True),
                       for inference: untrained, the LayerNorms' weights are all ones and biases all zeros, and torch
                       stores one initializer for equal parameters and names the others by Identity
                       nodes of it

Bad fixtures, each for one error message:

  truncated.onnx       the first 40% of resnet18.onnx
  random_bytes.onnx    4 KiB of seeded random bytes
  not_a_model.onnx     a valid protobuf (an ONNX TensorProto), but no model
  empty_graph.onnx     a model whose graph has no nodes
  dangling_input.onnx  node 'conv1' (#1) reads 'x', which nothing produces
  unknown_shape.onnx   a Reshape to a shape given at run time (a graph input)
  control_flow.onnx    an If node whose condition is a graph input
  sequence_input.onnx  a SequenceAt on a graph input that is a sequence of tensors, not a tensor
  overflow_shape.onnx  a Reshape whose target shape divides -2^63 by -1 (and takes it modulo -1): the
                       folder must not trap on the overflow; the shape stays unknown

And two with hand-checked costs:

  resize.onnx          Resize x2, nearest then linear, from 1x3x8x8
  negated_shape.onnx   a 2x3x4 input reshaped to [2, 12] by a shape built with Neg and ConstantOfShape
                       (Concat(Slice(Shape(x), 0, 1), ConstantOfShape(Max(Neg([-1]), [0]), 12))), as
                       ONNX's expansion of LayerNormalization builds its reduced shape
  static_if.onnx       an If whose condition is a Constant (true): the then-branch (a Relu) is taken
  static_loop.onnx     a Loop of a constant 3 iterations (MatMul, Tanh) with a scan output: unrolled
  dynamic_loop.onnx    the same Loop with its trip count a graph input: an error naming the node

And one that imports with a warning:

  custom_op.onnx       a Relu, then an op of a custom domain that no cost rule knows

expected.json records, per good fixture, what torch says: the number of
ONNX nodes and graph inputs, parameter_bytes (sum of p.numel() * 4 over
model.parameters()) and buffer_bytes (the float buffers the graph reads:
batch-norm running statistics).

Run with Debian's interpreter (it has python3-torch): /usr/bin/python3 tools/make_onnx_fixtures.py
"""
import io
import json
import os
import random
import warnings

import onnx
import torch
import torchvision
from onnx import TensorProto, helper

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "io", "testdata", "onnx")
OPSET = 17  # LayerNormalization is an ONNX op from opset 17


class EncoderBlock(torch.nn.Module):
    """Self-attention (separate q/k/v projections, scaled dot product) and a GELU MLP, post-norm."""

    def __init__(self, d=64, heads=4):
        super().__init__()
        self.heads = heads
        self.q = torch.nn.Linear(d, d)
        self.k = torch.nn.Linear(d, d)
        self.v = torch.nn.Linear(d, d)
        self.o = torch.nn.Linear(d, d)
        self.ln1 = torch.nn.LayerNorm(d)
        self.ff1 = torch.nn.Linear(d, 4 * d)
        self.ff2 = torch.nn.Linear(4 * d, d)
        self.ln2 = torch.nn.LayerNorm(d)

    def forward(self, x):
        b, t, d = x.shape
        h = self.heads

        def split(y):
            return y.reshape(b, t, h, d // h).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        a = torch.softmax(q @ k.transpose(-2, -1) / (d // h) ** 0.5, dim=-1)
        y = (a @ v).transpose(1, 2).reshape(b, t, d)
        x = self.ln1(x + self.o(y))
        return self.ln2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


class TinyLstm(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(32, 64, num_layers=2)
        self.fc = torch.nn.Linear(64, 10)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.fc(y)


class LayerScale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.gamma = torch.nn.Parameter(torch.full((8, 1, 1), 1e-6))

    def forward(self, x):
        return x.mean() + self.gamma * self.conv(x)


class ClassToken(torch.nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.cls_token = torch.nn.Parameter(torch.zeros(1, 1, d))
        self.head = torch.nn.Linear(d, 4)

    def forward(self, x):
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        return self.head(torch.cat([cls, x], dim=1))


class WindowAttention(torch.nn.Module):
    """Swin's padding to whole windows, the windows, and attention within each by Einsum."""

    def __init__(self, c=8, window=4):
        super().__init__()
        self.window = window
        self.proj = torch.nn.Linear(c, c)

    def forward(self, x):
        b, h, w, c = x.shape
        ws = self.window
        pad_b, pad_r = (ws - h % ws) % ws, (ws - w % ws) % ws
        x = torch.nn.functional.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        _, ph, pw, _ = x.shape
        x = x.view(b, ph // ws, ws, pw // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, -1, ws * ws, c)
        a = torch.softmax(torch.einsum("b w i c, b w j c -> b w i j", x, x), dim=-1)
        return self.proj(torch.einsum("b w i j, b w j c -> b w i c", a, x))


class TwoNorms(torch.nn.Module):
    def __init__(self, d=16):
        super().__init__()
        self.ln1 = torch.nn.LayerNorm(d)
        self.fc = torch.nn.Linear(d, d)
        self.ln2 = torch.nn.LayerNorm(d)

    def forward(self, x):
        return self.ln2(self.fc(self.ln1(x)))


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def export(model, example, dynamic_axes=None, export_params=False, training=True):
    model.train(training)
    f = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), f, export_params=export_params, opset_version=OPSET,
                          training=torch.onnx.TrainingMode.TRAINING if training else torch.onnx.TrainingMode.EVAL,
                          do_constant_folding=False,
                          input_names=["x"], output_names=["y"], dynamic_axes=dynamic_axes)
    return f.getvalue()


def torch_facts(model, data):
    proto = onnx.load_from_string(data)
    input_names = {i.name for i in proto.graph.input}
    buffers = sum(b.numel() * b.element_size() for name, b in model.named_buffers()
                  if b.is_floating_point() and name in input_names)
    return {
        "nodes": len(proto.graph.node),
        "graph_inputs": len(proto.graph.input),
        "parameter_bytes": sum(p.numel() * 4 for p in model.parameters()),
        "buffer_bytes": buffers,
        "bytes": len(data),
    }


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def model_bytes(nodes, inputs, outputs, name, initializers=()):
    graph = helper.make_graph(nodes, name, inputs, outputs, initializer=list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)]).SerializeToString()


def main():
    torch.manual_seed(0)
    os.makedirs(OUT, exist_ok=True)
    expected = {}
    good = [
        ("resnet18.onnx", torchvision.models.resnet18(), torch.randn(4, 3, 224, 224), None),
        ("mobilenet_v2.onnx", torchvision.models.mobilenet_v2(), torch.randn(2, 3, 224, 224), None),
        ("attention.onnx", EncoderBlock(), torch.randn(2, 16, 64), None),
        ("lstm.onnx", TinyLstm(), torch.randn(10, 4, 32), None),
        ("symbolic_batch.onnx", Mlp(), torch.randn(3, 16), {"x": {0: "batch"}, "y": {0: "batch"}}),
        ("layer_scale.onnx", LayerScale(), torch.randn(2, 3, 8, 8), None),
        ("vit_expand.onnx", ClassToken(), torch.randn(2, 5, 16), None),
    ]
    for name, model, example, dynamic_axes in good:
        data = export(model, example, dynamic_axes)
        write(name, data)
        expected[name] = torch_facts(model, data)
    window = WindowAttention()
    data = export(window, torch.randn(1, 7, 7, 8))
    write("window_pad.onnx", data)
    expected["window_pad.onnx"] = torch_facts(window, data)
    norms = TwoNorms()
    data = export(norms, torch.randn(2, 16), export_params=True, training=False)  # an inference export shares
    write("shared_params.onnx", data)
    expected["shared_params.onnx"] = torch_facts(norms, data)
    expected["shared_params.onnx"]["initializers"] = len(onnx.load_from_string(data).graph.initializer)

    resnet = open(os.path.join(OUT, "resnet18.onnx"), "rb").read()
    write("truncated.onnx", resnet[: len(resnet) * 2 // 5])
    rng = random.Random(20240601)
    write("random_bytes.onnx", bytes(rng.randrange(256) for _ in range(4096)))
    write("not_a_model.onnx", helper.make_tensor("", TensorProto.FLOAT, [2, 3], [0.5] * 6).SerializeToString())

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 8, 8])
    write("empty_graph.onnx", model_bytes([], [x], [y], "empty"))

    # Node #1 'conv1' reads 'x', which is neither a graph input, an initializer nor a node output.
    img = helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 3, 8, 8])
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 4, 6, 6])
    w = helper.make_tensor("conv1.weight", TensorProto.FLOAT, [4, 3, 3, 3], [0.0] * 108)
    write("dangling_input.onnx", model_bytes(
        [helper.make_node("Relu", ["image"], ["r"], name="relu0"),
         helper.make_node("Conv", ["x", "conv1.weight"], ["out"], name="conv1")],
        [img], [out], "dangling", [w]))

    # The Reshape's target shape is a graph input: known only at run time.
    data = helper.make_tensor_value_info("data", TensorProto.FLOAT, [4, 6])
    shape = helper.make_tensor_value_info("shape", TensorProto.INT64, [2])
    reshaped = helper.make_tensor_value_info("reshaped", TensorProto.FLOAT, ["rows", "cols"])
    write("unknown_shape.onnx", model_bytes(
        [helper.make_node("Relu", ["data"], ["r"], name="relu"),
         helper.make_node("Reshape", ["r", "shape"], ["reshaped"], name="reshape")],
        [data, shape], [reshaped], "unknown_shape"))

    # An op no cost rule knows, its output shape given in value_info.
    c_in = helper.make_tensor_value_info("c_in", TensorProto.FLOAT, [2, 8])
    c_mid = helper.make_tensor_value_info("c_mid", TensorProto.FLOAT, [2, 8])
    c_out = helper.make_tensor_value_info("c_out", TensorProto.FLOAT, [2, 8])
    graph = helper.make_graph([helper.make_node("Relu", ["c_in"], ["c_mid"], name="relu"),
                               helper.make_node("FancyOp", ["c_mid"], ["c_out"], name="fancy", domain="com.example")],
                              "custom", [c_in], [c_out], value_info=[c_mid])
    write("custom_op.onnx", helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                                     helper.make_opsetid("com.example", 1)]).SerializeToString())

    # Weights as Constant nodes: x [2, 16] -> MatMul W1 [16, 32] -> Add b1 [32] -> Relu -> MatMul W2 [32, 8].
    def constant(name, dims):
        count = 1
        for d in dims:
            count *= d
        return helper.make_node("Constant", [], [name], name=name + "_const",
                                value=helper.make_tensor(name, TensorProto.FLOAT, dims, [0.01] * count))
    cx = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])
    cy = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])
    data = model_bytes(
        [constant("w1", [16, 32]), constant("b1", [32]), constant("w2", [32, 8]),
         helper.make_node("MatMul", ["x", "w1"], ["h"], name="fc1"),
         helper.make_node("Add", ["h", "b1"], ["hb"], name="fc1_bias"),
         helper.make_node("Relu", ["hb"], ["r"], name="relu"),
         helper.make_node("MatMul", ["r", "w2"], ["y"], name="fc2")],
        [cx], [cy], "constant_weights")
    write("constant_weights.onnx", data)
    expected["constant_weights.onnx"] = {"nodes": 7, "graph_inputs": 1, "parameter_bytes": (16 * 32 + 32 + 32 * 8) * 4,
                                         "buffer_bytes": 0, "bytes": len(data), "weight_constants": 3}

    # A branch taken at run time: If on a graph input, a one-node graph per branch.
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    fx = helper.make_tensor_value_info("fx", TensorProto.FLOAT, [2, 4])
    fy = helper.make_tensor_value_info("fy", TensorProto.FLOAT, [2, 4])
    then_graph = helper.make_graph([helper.make_node("Relu", ["fx"], ["t"], name="then_relu")], "then", [],
                                   [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 4])])
    else_graph = helper.make_graph([helper.make_node("Neg", ["fx"], ["e"], name="else_neg")], "else", [],
                                   [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2, 4])])
    write("control_flow.onnx", model_bytes(
        [helper.make_node("Relu", ["fx"], ["fr"], name="relu"),
         helper.make_node("If", ["cond"], ["fy"], name="branch", then_branch=then_graph, else_branch=else_graph)],
        [cond, fx], [fy], "control_flow"))

    # A graph input that is a sequence of tensors.
    seq = helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, [2, 4])
    at = helper.make_tensor_value_info("at", TensorProto.FLOAT, [2, 4])
    zero = helper.make_tensor("zero", TensorProto.INT64, [], [0])
    write("sequence_input.onnx", model_bytes(
        [helper.make_node("SequenceAt", ["seq", "zero"], ["at"], name="first")], [seq], [at], "sequence_input", [zero]))

    # A target shape whose arithmetic overflows 64 bits.
    ox = helper.make_tensor_value_info("ox", TensorProto.FLOAT, [2, 3])
    oy = helper.make_tensor_value_info("oy", TensorProto.FLOAT, ["rows", "cols"])
    write("overflow_shape.onnx", model_bytes(
        [helper.make_node("Div", ["lowest", "minus_one"], ["quotient"], name="divide"),
         helper.make_node("Mod", ["lowest", "minus_one"], ["remainder"], name="modulo"),
         helper.make_node("Concat", ["quotient", "remainder"], ["target"], name="target", axis=0),
         helper.make_node("Reshape", ["ox", "target"], ["oy"], name="reshape")],
        [ox], [oy], "overflow_shape",
        [helper.make_tensor("lowest", TensorProto.INT64, [1], [-2**63]),
         helper.make_tensor("minus_one", TensorProto.INT64, [1], [-1])]))

    # A target shape built with Neg and Max from the input's Shape.
    nx = helper.make_tensor_value_info("nx", TensorProto.FLOAT, [2, 3, 4])
    ny = helper.make_tensor_value_info("ny", TensorProto.FLOAT, [2, 12])
    ints = lambda name, values: helper.make_tensor(name, TensorProto.INT64, [len(values)], values)
    write("negated_shape.onnx", model_bytes(
        [helper.make_node("Shape", ["nx"], ["shape"], name="shape"),
         helper.make_node("Slice", ["shape", "zero1", "one1"], ["batch"], name="batch"),
         helper.make_node("Neg", ["minus1"], ["count"], name="negate"),
         helper.make_node("Max", ["count", "zero1"], ["count0"], name="at_least_zero"),
         helper.make_node("ConstantOfShape", ["count0"], ["rest"], name="rest", value=ints("twelve", [12])),
         helper.make_node("Concat", ["batch", "rest"], ["target"], name="target", axis=0),
         helper.make_node("Relu", ["nx"], ["nr"], name="relu"),
         helper.make_node("Reshape", ["nr", "target"], ["ny"], name="reshape")],
        [nx], [ny], "negated_shape", [ints("zero1", [0]), ints("one1", [1]), ints("minus1", [-1])]))

    # The same If on a constant condition: devplace takes the branch.
    write("static_if.onnx", model_bytes(
        [helper.make_node("Relu", ["fx"], ["fr"], name="relu"),
         helper.make_node("Constant", [], ["always"], name="always", value=helper.make_tensor("always", TensorProto.BOOL, [], [True])),
         helper.make_node("If", ["always"], ["fy"], name="branch", then_branch=then_graph, else_branch=else_graph)],
        [fx], [fy], "static_if"))

    # A Loop of 3 iterations (a constant trip count, a condition that stays
    # true) carrying h [2,4] through Tanh(MatMul(h, w)) with w [4,4] of the
    # outer graph, scanning each iteration's h: devplace unrolls it.
    lh = helper.make_tensor_value_info("h0", TensorProto.FLOAT, [2, 4])
    hs = helper.make_tensor_value_info("hs", TensorProto.FLOAT, [3, 2, 4])
    hl = helper.make_tensor_value_info("h_last", TensorProto.FLOAT, [2, 4])
    w = helper.make_tensor("w", TensorProto.FLOAT, [4, 4], [0.1 * i for i in range(16)])
    body = helper.make_graph(
        [helper.make_node("MatMul", ["h_in", "w"], ["mm"], name="cell_matmul"),
         helper.make_node("Tanh", ["mm"], ["h_out"], name="cell_tanh"),
         helper.make_node("Identity", ["cond_in"], ["cond_out"], name="keep_going"),
         helper.make_node("Identity", ["h_out"], ["h_scan"], name="scan")],
        "cell",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("h_scan", TensorProto.FLOAT, [2, 4])])
    trips = helper.make_node("Constant", [], ["trips"], name="trips", value=helper.make_tensor("trips", TensorProto.INT64, [], [3]))
    write("static_loop.onnx", model_bytes(
        [trips, helper.make_node("Loop", ["trips", "", "h0"], ["h_last", "hs"], name="rnn", body=body)],
        [lh], [hl, hs], "static_loop", [w]))
    # The same Loop with its trip count a graph input: known only at run time.
    m = helper.make_tensor_value_info("m", TensorProto.INT64, [])
    write("dynamic_loop.onnx", model_bytes(
        [helper.make_node("Loop", ["m", "", "h0"], ["h_last", "hs"], name="rnn", body=body)],
        [m, lh], [hl, hs], "dynamic_loop", [w]))

    # Resize x2 twice: nearest 1x3x8x8 -> 1x3x16x16, then linear -> 1x3x32x32.
    rx = helper.make_tensor_value_info("rx", TensorProto.FLOAT, [1, 3, 8, 8])
    ry = helper.make_tensor_value_info("ry", TensorProto.FLOAT, [1, 3, 32, 32])
    scales = helper.make_tensor("scales", TensorProto.FLOAT, [4], [1.0, 1.0, 2.0, 2.0])
    write("resize.onnx", model_bytes(
        [helper.make_node("Resize", ["rx", "", "scales"], ["r1"], name="nearest", mode="nearest"),
         helper.make_node("Resize", ["r1", "", "scales"], ["ry"], name="linear", mode="linear")],
        [rx], [ry], "resize", [scales]))

    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    for name in sorted(os.listdir(OUT)):
        print(f"{os.path.getsize(os.path.join(OUT, name)):8d}  {name}")


if __name__ == "__main__":
    main()
