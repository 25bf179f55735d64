// File: onnx_loop_unrolling.h
// Unrolling an ONNX Loop whose trip count is a constant and whose
// condition stays true: the body is copied once per iteration, its values
// renamed LOOP/iterT/NAME, each iteration reading the values the one
// before carried; the loop's carried outputs become Identities of the last
// iteration's, and each scan output a Concat along a new axis 0 of the
// iterations' values (Unsqueeze, then Concat), as Loop stacks them.
// Weights inside the body are shared by the iterations (renamed LOOP/NAME,
// added once), like the weights of an RNN cell.
//
// onnx_constant_folding.cc decides when a Loop qualifies (it knows the
// folded values) and calls this.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_set>

#include <google/protobuf/repeated_ptr_field.h>

namespace onnx {
class GraphProto;
class NodeProto;
}  // namespace onnx

namespace devplace {

// At most this many iterations, and this many nodes made in all, per Loop.
inline constexpr int64_t kMaxLoopTrips = 100000;
inline constexpr int64_t kMaxUnrolledNodes = 1000000;

// True if `body` can be unrolled as described above: the shapes of its
// inputs and outputs match the Loop node, its condition output is its
// condition input passed on (directly or through an Identity), and it has
// no subgraph of its own.
bool loop_body_unrollable(const onnx::NodeProto& loop, const onnx::GraphProto& body);

// Appends to `out` the nodes of `trips` (>= 1) iterations of the Loop node
// `loop` with body `body`, and to `graph`'s initializers the body's weights
// and the constants it needs (iteration numbers, the condition, Unsqueeze
// axes), whose names go into `constants` (they are not parameters).
// `opset` is the model's default-domain opset (Unsqueeze takes its axes as
// an input from 13 on).
void unroll_loop(const onnx::NodeProto& loop, const onnx::GraphProto& body, int64_t trips, int64_t opset,
                 onnx::GraphProto& graph, google::protobuf::RepeatedPtrField<onnx::NodeProto>& out,
                 std::unordered_set<std::string>& constants);

}  // namespace devplace
