// Graph fixtures for the readers' tests: a graph with every field set, and
// an exact comparison of two graphs.
#pragma once

#include <gtest/gtest.h>

#include "graph/builder.h"
#include "graph/graph.h"

namespace devplace {

inline void expect_same_graph(const Graph& a, const Graph& b) {
  ASSERT_EQ(a.num_ops(), b.num_ops());
  ASSERT_EQ(a.num_tensors(), b.num_tensors());
  EXPECT_EQ(a.name(), b.name());
  for (DeviceKind kind : {DeviceKind::kCpu, DeviceKind::kGpu}) {
    EXPECT_EQ(a.measured_on(kind).model, b.measured_on(kind).model);
    EXPECT_EQ(a.measured_on(kind).peak_flops, b.measured_on(kind).peak_flops);
    EXPECT_EQ(a.measured_on(kind).memory_bandwidth_bytes_per_s, b.measured_on(kind).memory_bandwidth_bytes_per_s);
  }
  for (OpId i = 0; i < a.num_ops(); ++i) {
    const Op& x = a.op(i);
    const Op& y = b.op(i);
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.type, y.type);
    EXPECT_EQ(x.flops, y.flops);  // exact: doubles are written to round-trip
    EXPECT_EQ(x.parameter_bytes, y.parameter_bytes);
    EXPECT_EQ(x.optimizer_state_bytes, y.optimizer_state_bytes);
    EXPECT_EQ(x.memory_traffic_bytes, y.memory_traffic_bytes);
    EXPECT_EQ(x.measured_time_s, y.measured_time_s);
    EXPECT_EQ(x.measured_backward_time_s, y.measured_backward_time_s);
    EXPECT_EQ(x.kernel_mask, y.kernel_mask);
    EXPECT_EQ(x.colocation_group, y.colocation_group);
    EXPECT_EQ(x.pinned_device, y.pinned_device);
    EXPECT_EQ(x.phase, y.phase);
    EXPECT_EQ(x.layer, y.layer);
    EXPECT_EQ(x.forward_op, y.forward_op);
    EXPECT_EQ(x.inputs, y.inputs);
    EXPECT_EQ(x.outputs, y.outputs);
  }
  for (TensorId t = 0; t < a.num_tensors(); ++t) {
    EXPECT_EQ(a.tensor(t).name, b.tensor(t).name);
    EXPECT_EQ(a.tensor(t).shape, b.tensor(t).shape);
    EXPECT_EQ(a.tensor(t).dtype, b.tensor(t).dtype);
    EXPECT_EQ(a.tensor(t).bytes, b.tensor(t).bytes);
    EXPECT_EQ(a.tensor(t).consumers, b.tensor(t).consumers);
  }
}

inline Graph every_field() {
  GraphBuilder b("every field");
  b.set_measured_on(DeviceKind::kGpu, MeasuredOn{"Tesla V100", 1.57e13, 9e11});
  const OpId x = b.add_op("x", "Input");
  b.mutable_op(x).pinned_device = "/cpu:0";
  b.mutable_op(x).kernel_mask = 1u << static_cast<int>(DeviceKind::kCpu);
  const TensorId xt = b.add_output(x, "x:0", {3, 5}, DType::kInt64);
  const OpId f = b.add_op("f", "Conv2D");
  Op& op = b.mutable_op(f);
  op.flops = 0.1 + 0.2;  // not exactly representable in decimal
  op.parameter_bytes = 12345;
  op.memory_traffic_bytes = 999;
  op.measured_time_s = {1.0 / 3.0, -1};
  op.measured_backward_time_s = {-1, 2.5e-7};
  op.colocation_group = "grp";
  op.layer = 7;
  b.add_input(f, xt);
  b.add_output(f, "f:0", {}, DType::kBFloat16, 77);  // explicit bytes
  const TensorId f1 = b.add_output(f, "f:1", {2}, DType::kFloat16);
  // A backward op that reads one tensor twice.
  const OpId g = b.add_op("f_grad", "Conv2DBackpropInput");
  b.mutable_op(g).phase = OpPhase::kBackward;
  b.mutable_op(g).forward_op = f;
  b.mutable_op(g).optimizer_state_bytes = 24;
  b.add_input(g, f1);
  b.add_input(g, f1);
  b.add_output(g, "f_grad:0", {3, 5, 1}, DType::kFloat64);
  return std::move(b).build().value();
}

}  // namespace devplace
