// File: device_choice.h
// Small rules the simple placers share for picking a device a co-location
// group is allowed to use (kernels and pins, from Problem::allowed_devices).
#pragma once

#include "sim/problem.h"

namespace devplace {

// `preferred` if the group may use it, else the first allowed device of the
// same kind, else the first allowed device. The group must allow some device.
DeviceId choose_allowed_device(const Problem& problem, GroupId group, DeviceId preferred);

// Groups in the order their first op appears in the graph's topological order.
std::vector<GroupId> groups_in_topological_order(const Graph& graph);

}  // namespace devplace
