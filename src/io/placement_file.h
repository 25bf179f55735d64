// File: placement_file.h
// Placement files: op name -> device name, as JSON
//   {"format": "devplace-placement", "version": 1, "graph": "...", "cluster": "...",
//    "placement": {"fc1": "/gpu:0", ...}}
// (a bare {"op": "device"} object is accepted too) or CSV lines "op,device"
// (optional header "op,device"; fields may be double-quoted).
//
// An op left out takes the device of its co-location group, so a file may
// name only forward ops and their backward and update ops follow. Naming an
// unknown op or device, putting one group on two devices, or leaving a whole
// group out is an error naming the file and the line or key.
#pragma once

#include <string>

#include "common/status.h"
#include "sim/placement.h"
#include "sim/problem.h"

namespace devplace {

Result<Placement> read_placement_file(const std::string& path, const Problem& problem);

Status write_placement_json(const std::string& path, const Problem& problem, const Placement& placement);
Status write_placement_csv(const std::string& path, const Problem& problem, const Placement& placement);
// Picks CSV for a ".csv" path, JSON otherwise.
Status write_placement_file(const std::string& path, const Problem& problem, const Placement& placement);

}  // namespace devplace
