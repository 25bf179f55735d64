// File: graph.h
// Graph: the immutable operator graph of one model (forward only, or a whole
// training step after expand_training_step). Ops and tensors are addressed by
// dense integer ids so that the cost model and the simulator work on flat arrays.
//
// A Graph is made by GraphBuilder (builder.h), which validates it (validate.h);
// once built nothing changes it and every other module only reads it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace devplace {

using OpId = int32_t;
using TensorId = int32_t;
using GroupId = int32_t;
inline constexpr int32_t kNoId = -1;

// The kinds of device an op may have a kernel for.
enum class DeviceKind : uint8_t { kCpu = 0, kGpu = 1 };
inline constexpr int kNumDeviceKinds = 2;
inline constexpr uint8_t kAllKernels = (1u << kNumDeviceKinds) - 1;

std::string_view device_kind_name(DeviceKind kind);  // "cpu", "gpu"
std::optional<DeviceKind> parse_device_kind(std::string_view name);

enum class DType : uint8_t { kFloat32, kFloat16, kBFloat16, kFloat64, kInt8, kUInt8, kInt32, kInt64, kBool };

int dtype_size_bytes(DType dtype);
bool dtype_is_floating(DType dtype);
std::string_view dtype_name(DType dtype);  // "float32", ...
std::optional<DType> parse_dtype(std::string_view name);

// Where an op sits in a training step.
enum class OpPhase : uint8_t { kForward, kBackward, kUpdate };
std::string_view op_phase_name(OpPhase phase);  // "forward", "backward", "update"
std::optional<OpPhase> parse_op_phase(std::string_view name);

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;  // may be empty when only the size is known (profiles)
  DType dtype = DType::kFloat32;
  int64_t bytes = 0;           // size in memory and on the wire
  OpId producer = kNoId;
  std::vector<OpId> consumers;  // filled by GraphBuilder::build, in op id order, no repeats
};

struct Op {
  std::string name;
  std::string type;  // e.g. "MatMul", "Conv2D"; free-form, used by the cost model's classes
  std::vector<TensorId> inputs;
  std::vector<TensorId> outputs;
  double flops = 0;                // floating-point operations of one execution
  int64_t parameter_bytes = 0;     // weights owned by this op: resident on its device all step
  int64_t optimizer_state_bytes = 0;  // e.g. Adam moments: resident on its device all step
  // Bytes read and written by one execution; -1 = derive from the tensors
  // (inputs + outputs + parameter_bytes + optimizer_state_bytes).
  int64_t memory_traffic_bytes = -1;
  // Measured seconds per device kind; negative = not measured (use the roofline).
  std::array<double, kNumDeviceKinds> measured_time_s{-1.0, -1.0};
  // Measured seconds of this forward op's backward, for expand_training_step.
  std::array<double, kNumDeviceKinds> measured_backward_time_s{-1.0, -1.0};
  uint8_t kernel_mask = kAllKernels;  // bit k set: has a kernel for DeviceKind k
  std::string colocation_group;       // ops sharing a non-empty name share a device
  std::string pinned_device;          // e.g. "/cpu:0"; empty = free
  OpPhase phase = OpPhase::kForward;
  int32_t layer = -1;                 // model layer mark, for expert placements; -1 = none
  OpId forward_op = kNoId;            // backward/update ops: the forward op they come from

  bool has_kernel(DeviceKind kind) const { return (kernel_mask >> static_cast<int>(kind)) & 1u; }
  bool has_measured_time(DeviceKind kind) const { return measured_time_s[static_cast<int>(kind)] >= 0; }
};

// The device a graph's measured times of one kind were taken on (a
// profile's GPU): the cost model scales them to other devices of that kind
// by the ratio of their roofline times (cost/measured_cost_model.h).
struct MeasuredOn {
  std::string model;                       // "NVIDIA V100 SXM2 (assumed)"
  double peak_flops = 0;                   // 0: not known (times are used as they are)
  double memory_bandwidth_bytes_per_s = 0;
  bool known() const { return peak_flops > 0 && memory_bandwidth_bytes_per_s > 0; }
};

class Graph {
 public:
  const std::string& name() const { return name_; }
  int num_ops() const { return static_cast<int>(ops_.size()); }
  int num_tensors() const { return static_cast<int>(tensors_.size()); }
  // Data edges: (tensor, consuming op) pairs.
  int64_t num_edges() const { return num_edges_; }
  int num_groups() const { return static_cast<int>(group_names_.size()); }

  const Op& op(OpId id) const { return ops_[id]; }
  const Tensor& tensor(TensorId id) const { return tensors_[id]; }
  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Tensor>& tensors() const { return tensors_; }

  // Ops in a topological order (producers before consumers), ties broken by id.
  const std::vector<OpId>& topo_order() const { return topo_order_; }
  // Position of each op in topo_order().
  int32_t topo_index(OpId id) const { return topo_index_[id]; }

  // Co-location groups: every op is in exactly one group; an op without a
  // colocation_group name is alone in a group named after it. Dense ids,
  // numbered by the first op (in id order) of each group.
  GroupId group_of(OpId id) const { return group_of_[id]; }
  const std::string& group_name(GroupId id) const { return group_names_[id]; }
  const std::vector<OpId>& group_ops(GroupId id) const { return group_ops_[id]; }

  std::optional<OpId> find_op(std::string_view name) const;
  std::optional<TensorId> find_tensor(std::string_view name) const;

  // Where the measured times of `kind` were taken, if the graph says.
  const MeasuredOn& measured_on(DeviceKind kind) const { return measured_on_[static_cast<int>(kind)]; }

  // Totals over all ops.
  double total_flops() const;
  int64_t total_parameter_bytes() const;
  bool has_backward() const;  // any op in the backward or update phase

 private:
  friend class GraphBuilder;
  Graph() = default;

  std::string name_;
  std::vector<Op> ops_;
  std::vector<Tensor> tensors_;
  int64_t num_edges_ = 0;
  std::vector<OpId> topo_order_;
  std::vector<int32_t> topo_index_;
  std::vector<GroupId> group_of_;
  std::vector<std::string> group_names_;
  std::vector<std::vector<OpId>> group_ops_;
  std::array<MeasuredOn, kNumDeviceKinds> measured_on_{};
};

}  // namespace devplace
