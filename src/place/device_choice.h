// File: device_choice.h
// Small rules the placers share for picking a device a group of the grouping
// is allowed to use (kernels and pins).
#pragma once

#include <vector>

#include "group/grouping.h"
#include "sim/problem.h"

namespace devplace {

// `preferred` if the group may use it, else the first allowed device of the
// same kind, else the first allowed device.
DeviceId choose_allowed_device(const Problem& problem, const Grouping& grouping, int32_t group, DeviceId preferred);

// The GPUs of the cluster, in id order; every device if it has none.
std::vector<DeviceId> gpus_or_all_devices(const Cluster& cluster);

}  // namespace devplace
