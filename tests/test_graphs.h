// File: test_graphs.h
// Small graphs shared by the placer tests, and finding an op by name.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/rng.h"
#include "graph/builder.h"

namespace devplace::testing {

// The op named `name`; fails the test (and returns op 0) if there is none.
inline const Op& op_named(const Graph& g, const std::string& name) {
  std::optional<OpId> id = g.find_op(name);
  EXPECT_TRUE(id.has_value()) << "no op " << name;
  return g.op(id.value_or(0));
}

// A random DAG of `n` ops (edges only forward in id order) with random
// FLOPs and tensor sizes, so that placements trade compute against
// transfers; some ops have parameters, so that memory can bind.
inline Graph tiny_dag(uint64_t seed, int n) {
  Rng rng(seed);
  GraphBuilder b("tiny" + std::to_string(seed));
  std::vector<TensorId> out;
  for (int i = 0; i < n; ++i) {
    const OpId op = b.add_op("op" + std::to_string(i), "MatMul");
    b.mutable_op(op).flops = 1e9 * static_cast<double>(1 + rng.below(200));
    b.mutable_op(op).parameter_bytes = rng.below(3) == 0 ? 300'000'000 : 0;
    for (int j = 0; j < i; ++j) {
      if (rng.below(3) == 0 || j == i - 1) b.add_input(op, out[j]);
    }
    out.push_back(b.add_output(op, "t" + std::to_string(i), {}, DType::kFloat32, static_cast<int64_t>(1 + rng.below(50)) * 1'000'000));
  }
  return std::move(b).build().value();
}

}  // namespace devplace::testing
