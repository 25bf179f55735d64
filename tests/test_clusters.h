// File: test_clusters.h
// Small clusters with round numbers, so that expected step times can be
// worked out by hand in the tests.
#pragma once

#include "cluster/cluster.h"
#include "common/check.h"

namespace devplace::testing {

// /cpu:0, /gpu:0, /gpu:1. The CPU reaches both GPUs through one switch
// ("pcie": cpu <-> pcie at 1 GB/s, pcie <-> each GPU at 1 GB/s, 0.5 ms per
// hop); the GPUs are joined directly at 1 GB/s with 1 ms latency. Each
// device has `memory_bytes` of memory.
inline Cluster toy_cluster(int64_t memory_bytes = int64_t{1} << 30) {
  auto device = [&](const char* name, DeviceKind kind) {
    Device d;
    d.name = name;
    d.kind = kind;
    d.peak_flops = 1e12;
    d.memory_bandwidth_bytes_per_s = 1e11;
    d.memory_bytes = memory_bytes;
    d.launch_overhead_s = 0;
    return d;
  };
  std::vector<Device> devices = {device("/cpu:0", DeviceKind::kCpu), device("/gpu:0", DeviceKind::kGpu),
                                 device("/gpu:1", DeviceKind::kGpu)};
  std::vector<Link> links = {{"/cpu:0", "pcie", 1e9, 0.5e-3},
                             {"pcie", "/gpu:0", 1e9, 0.5e-3},
                             {"pcie", "/gpu:1", 1e9, 0.5e-3},
                             {"/gpu:0", "/gpu:1", 1e9, 1e-3}};
  Result<Cluster> c = Cluster::create("toy", "test cluster", std::move(devices), {"pcie"}, std::move(links));
  DEVPLACE_CHECK(c.ok());
  return std::move(c).value();
}

}  // namespace devplace::testing
