// File: layered.cc
// zoo:layered, a synthetic layered network for tests and benchmarks (see builders.h).
#include "zoo/builders.h"

#include <string>

#include "graph/builder.h"

namespace devplace {

Result<Graph> build_layered(ZooOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t layers, options.get_int("layers", 16, 1, 1'000'000));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t width, options.get_int("width", 4, 1, 100'000));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t fanin, options.get_int("fanin", 2, 1, 64));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t batch, options.get_int("batch", 64, 1, 1 << 20));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t hidden, options.get_int("hidden", 1024, 1, 1 << 20));
  // Forward ops; a training step has about three times as many.
  DEVPLACE_RETURN_IF_ERROR(options.check_product("layers x width", layers, width, 1'000'000));
  if (fanin > width) return invalid_input("zoo:layered: fanin (" + std::to_string(fanin) + ") must not exceed width (" + std::to_string(width) + ")");

  GraphBuilder b("layered");
  const OpId input = b.add_op("input", "Input");
  const TensorId x = b.add_output(input, "input:0", {batch, hidden}, DType::kFloat32);
  std::vector<TensorId> prev;
  for (int64_t l = 0; l < layers; ++l) {
    std::vector<TensorId> cur;
    for (int64_t j = 0; j < width; ++j) {
      const std::string name = "l" + std::to_string(l) + "/n" + std::to_string(j);
      const OpId op = b.add_op(name, "MatMul");
      Op& o = b.mutable_op(op);
      o.layer = static_cast<int32_t>(l);
      o.parameter_bytes = hidden * hidden * 4;
      const int64_t reads = l == 0 ? 1 : fanin;
      o.flops = 2.0 * static_cast<double>(batch) * hidden * hidden * static_cast<double>(reads);
      if (l == 0) {
        b.add_input(op, x);
      } else {
        for (int64_t k = 0; k < fanin; ++k) b.add_input(op, prev[(j + k) % width]);
      }
      cur.push_back(b.add_output(op, name + ":0", {batch, hidden}, DType::kFloat32));
    }
    prev = std::move(cur);
  }
  const OpId loss = b.add_op("loss", "Loss");
  b.mutable_op(loss).layer = static_cast<int32_t>(layers - 1);
  b.mutable_op(loss).flops = static_cast<double>(batch * hidden * width);
  for (TensorId t : prev) b.add_input(loss, t);
  b.add_output(loss, "loss:0", {}, DType::kFloat32);
  return std::move(b).build();
}

}  // namespace devplace
