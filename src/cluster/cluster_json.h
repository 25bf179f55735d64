// File: cluster_json.h
// The cluster JSON format ("devplace-cluster", version 1; see docs/formats.md)
// and the presets shipped as data under clusters/NAME.json.
#pragma once

#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "common/json_reader.h"
#include "common/status.h"

namespace devplace {

// Reads a cluster file. Errors are prefixed with the path.
Result<Cluster> read_cluster_file(const std::string& path);
// Builds a cluster from parsed JSON; `source` prefixes errors.
Result<Cluster> cluster_from_json(const json::Json& doc, const std::string& source);
json::Json cluster_to_json(const Cluster& cluster);

// The folder holding the preset files: $DEVPLACE_CLUSTERS if set, else the
// clusters/ folder of the source tree this binary was built from, else
// clusters/ next to the installed binary's share folder.
std::string preset_directory();
// Preset names (file stems), sorted.
std::vector<std::string> list_presets();
// `spec` is a path to a JSON file or a preset name. Unknown presets are an
// error listing the known ones.
Result<Cluster> load_cluster(const std::string& spec);

}  // namespace devplace
