// File: placement.h
// Placement: the device of every op. Placers produce them, evaluators score
// them, io/placement_file reads and writes them by name.
#pragma once

#include <vector>

#include "cluster/cluster.h"
#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

class Problem;

struct Placement {
  std::vector<DeviceId> device_of_op;  // indexed by OpId

  bool operator==(const Placement& other) const = default;
};

// A placement from one device per co-location group.
Placement placement_from_groups(const Graph& graph, const std::vector<DeviceId>& device_of_group);

// Checks that a placement fits the problem: one valid device per op, every
// op on a device with a kernel for it, pins honoured, co-location groups on
// one device. Errors name the op and the device.
Status check_placement(const Problem& problem, const Placement& placement);

}  // namespace devplace
