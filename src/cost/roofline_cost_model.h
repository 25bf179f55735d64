// File: roofline_cost_model.h
// RooflineCostModel: op time from FLOPs and bytes when nothing was measured.
//
//   time = launch_overhead_s + max(flops / (peak_flops * compute_fraction),
//                                  traffic_bytes / (memory_bandwidth * memory_fraction))
//
// The issue that asked for this model wrote the two terms as a sum; we take
// the maximum, the roofline proper: a kernel streams its operands while it
// computes, so adding the terms counts the overlapped time twice and makes
// every memory-heavy op look compute-bound too.
//
// The achievable fractions (defaults below) are what tuned libraries reach on
// large problems: cuBLAS/cuDNN SGEMM and convolutions reach 60-75% of FP32
// peak on Kepler to Ampere, MKL/OpenBLAS SGEMM about 70% of AVX2 peak on all
// cores but much less for the small per-timestep matmuls of RNNs, so 0.5;
// other kernels (elementwise, reductions) do little arithmetic per byte and
// reach about 70-80% of the memory bandwidth (STREAM-like), 0.7; and their
// arithmetic, when it matters, runs at a quarter of peak at best.
#pragma once

#include "cost/cost_model.h"

namespace devplace {

struct RooflineOptions {
  double gpu_contraction_compute_fraction = 0.65;
  double cpu_contraction_compute_fraction = 0.5;
  double other_compute_fraction = 0.25;
  double memory_fraction = 0.7;
};

class RooflineCostModel : public CostModel {
 public:
  explicit RooflineCostModel(RooflineOptions options = {}) : options_(options) {}
  std::string_view name() const override { return "roofline"; }
  double op_time_s(const Graph& graph, OpId op, const Device& device) const override;

  // Bytes one execution reads and writes (op.memory_traffic_bytes if set).
  static int64_t memory_traffic_bytes(const Graph& graph, OpId op);

 private:
  RooflineOptions options_;
};

}  // namespace devplace
