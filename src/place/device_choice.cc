// File: device_choice.cc
// Shared device rules of the placers.
#include "place/device_choice.h"

#include "common/check.h"

namespace devplace {

DeviceId choose_allowed_device(const Problem& problem, const Grouping& grouping, int32_t group, DeviceId preferred) {
  if (grouping.allows(group, preferred)) return preferred;
  const Cluster& c = problem.cluster();
  DeviceId first = kNoId;
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    if (!grouping.allows(group, d)) continue;
    if (c.device(d).kind == c.device(preferred).kind) return d;
    if (first == kNoId) first = d;
  }
  DEVPLACE_CHECK(first != kNoId);  // Grouping::create keeps only groups some device can run
  return first;
}

std::vector<DeviceId> gpus_or_all_devices(const Cluster& cluster) {
  std::vector<DeviceId> out;
  for (DeviceId d = 0; d < cluster.num_devices(); ++d) {
    if (cluster.device(d).kind == DeviceKind::kGpu) out.push_back(d);
  }
  if (out.empty()) {
    for (DeviceId d = 0; d < cluster.num_devices(); ++d) out.push_back(d);
  }
  return out;
}

}  // namespace devplace
