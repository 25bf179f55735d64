// File: cluster_json.cc
// Reads and writes cluster JSON; finds presets (data files under clusters/).
#include "cluster/cluster_json.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace devplace {

namespace fs = std::filesystem;
using json::Json;

namespace {

constexpr const char* kFormat = "devplace-cluster";
constexpr int kVersion = 1;

Result<Device> device_from_json(const Json& j, const std::string& where) {
  DEVPLACE_RETURN_IF_ERROR(json::require_object(j, where));
  DEVPLACE_RETURN_IF_ERROR(json::check_known_fields(
      j, {"name", "kind", "model", "peak_flops", "memory_bandwidth_bytes_per_s", "memory_bytes", "launch_overhead_s",
          "time_scale"},
      where));
  Device d;
  DEVPLACE_ASSIGN_OR_RETURN(d.name, json::get_string(j, "name", where));
  DEVPLACE_ASSIGN_OR_RETURN(std::string kind, json::get_string(j, "kind", where));
  std::optional<DeviceKind> k = parse_device_kind(kind);
  if (!k) return invalid_input(json::join(where, "kind") + ": expected \"cpu\" or \"gpu\", got \"" + kind + "\"");
  d.kind = *k;
  DEVPLACE_ASSIGN_OR_RETURN(d.model, json::get_string_or(j, "model", where, ""));
  DEVPLACE_ASSIGN_OR_RETURN(d.peak_flops, json::get_positive(j, "peak_flops", where));
  DEVPLACE_ASSIGN_OR_RETURN(d.memory_bandwidth_bytes_per_s, json::get_positive(j, "memory_bandwidth_bytes_per_s", where));
  DEVPLACE_ASSIGN_OR_RETURN(d.memory_bytes, json::get_positive_int(j, "memory_bytes", where));
  DEVPLACE_ASSIGN_OR_RETURN(d.launch_overhead_s, json::get_nonnegative_or(j, "launch_overhead_s", where, 0.0));
  if (j.contains("time_scale")) {
    DEVPLACE_ASSIGN_OR_RETURN(d.time_scale, json::get_positive(j, "time_scale", where));
  }
  return d;
}

Result<Link> link_from_json(const Json& j, const std::string& where) {
  DEVPLACE_RETURN_IF_ERROR(json::require_object(j, where));
  DEVPLACE_RETURN_IF_ERROR(json::check_known_fields(j, {"a", "b", "bandwidth_bytes_per_s", "latency_s"}, where));
  Link l;
  DEVPLACE_ASSIGN_OR_RETURN(l.a, json::get_string(j, "a", where));
  DEVPLACE_ASSIGN_OR_RETURN(l.b, json::get_string(j, "b", where));
  DEVPLACE_ASSIGN_OR_RETURN(l.bandwidth_bytes_per_s, json::get_positive(j, "bandwidth_bytes_per_s", where));
  DEVPLACE_ASSIGN_OR_RETURN(l.latency_s, json::get_nonnegative_or(j, "latency_s", where, 0.0));
  return l;
}

Result<std::vector<std::string>> strings_from_json(const Json& doc, const char* key) {
  std::vector<std::string> out;
  if (!doc.contains(key)) return out;
  const Json& arr = doc.at(key);
  DEVPLACE_RETURN_IF_ERROR(json::require_array(arr, key));
  for (size_t i = 0; i < arr.size(); ++i) {
    if (!arr[i].is_string()) return invalid_input(json::index(key, i) + ": expected a string, got " + json::brief(arr[i]));
    out.push_back(arr[i].get<std::string>());
  }
  return out;
}

Result<Cluster> parse_cluster(const Json& doc) {
  DEVPLACE_RETURN_IF_ERROR(json::require_object(doc, ""));
  DEVPLACE_RETURN_IF_ERROR(json::check_known_fields(
      doc, {"format", "version", "name", "description", "devices", "switches", "links", "notes"}, ""));
  DEVPLACE_ASSIGN_OR_RETURN(std::string format, json::get_string_or(doc, "format", "", kFormat));
  if (format != kFormat) return invalid_input("format: expected \"" + std::string(kFormat) + "\", got \"" + format + "\"");
  DEVPLACE_ASSIGN_OR_RETURN(int64_t version, json::get_int_or(doc, "version", "", kVersion));
  if (version != kVersion) return invalid_input("version: this devplace reads version 1, got " + std::to_string(version));
  DEVPLACE_ASSIGN_OR_RETURN(std::string name, json::get_string_or(doc, "name", "", "cluster"));
  DEVPLACE_ASSIGN_OR_RETURN(std::string description, json::get_string_or(doc, "description", "", ""));
  if (!doc.contains("devices")) return invalid_input("devices: missing required field");
  const Json& devs = doc.at("devices");
  DEVPLACE_RETURN_IF_ERROR(json::require_array(devs, "devices"));
  std::vector<Device> devices;
  for (size_t i = 0; i < devs.size(); ++i) {
    DEVPLACE_ASSIGN_OR_RETURN(Device d, device_from_json(devs[i], json::index("devices", i)));
    devices.push_back(std::move(d));
  }
  DEVPLACE_ASSIGN_OR_RETURN(std::vector<std::string> switches, strings_from_json(doc, "switches"));
  std::vector<Link> links;
  if (doc.contains("links")) {
    const Json& arr = doc.at("links");
    DEVPLACE_RETURN_IF_ERROR(json::require_array(arr, "links"));
    for (size_t i = 0; i < arr.size(); ++i) {
      DEVPLACE_ASSIGN_OR_RETURN(Link l, link_from_json(arr[i], json::index("links", i)));
      links.push_back(std::move(l));
    }
  }
  DEVPLACE_ASSIGN_OR_RETURN(std::vector<std::string> notes, strings_from_json(doc, "notes"));
  return Cluster::create(std::move(name), std::move(description), std::move(devices), std::move(switches),
                         std::move(links), std::move(notes));
}

}  // namespace

Result<Cluster> cluster_from_json(const Json& doc, const std::string& source) {
  Result<Cluster> c = parse_cluster(doc);
  if (!c.ok()) return c.error().with_prefix(source);
  return c;
}

Result<Cluster> read_cluster_file(const std::string& path) {
  DEVPLACE_ASSIGN_OR_RETURN(Json doc, json::parse_file(path));
  return cluster_from_json(doc, path);
}

Json cluster_to_json(const Cluster& cluster) {
  Json doc = Json::object();
  doc["format"] = kFormat;
  doc["version"] = kVersion;
  doc["name"] = cluster.name();
  doc["description"] = cluster.description();
  Json devs = Json::array();
  for (const Device& d : cluster.devices()) {
    devs.push_back({{"name", d.name},
                    {"kind", std::string(device_kind_name(d.kind))},
                    {"model", d.model},
                    {"peak_flops", d.peak_flops},
                    {"memory_bandwidth_bytes_per_s", d.memory_bandwidth_bytes_per_s},
                    {"memory_bytes", d.memory_bytes},
                    {"launch_overhead_s", d.launch_overhead_s}});
    if (d.time_scale != 1) devs.back()["time_scale"] = d.time_scale;
  }
  doc["devices"] = devs;
  doc["switches"] = cluster.switches();
  Json links = Json::array();
  for (const Link& l : cluster.links()) {
    links.push_back({{"a", l.a}, {"b", l.b}, {"bandwidth_bytes_per_s", l.bandwidth_bytes_per_s}, {"latency_s", l.latency_s}});
  }
  doc["links"] = links;
  doc["notes"] = cluster.notes();
  return doc;
}

std::string preset_directory() {
  if (const char* env = std::getenv("DEVPLACE_CLUSTERS"); env != nullptr && *env != '\0') return env;
#ifdef DEVPLACE_SOURCE_CLUSTERS_DIR
  if (fs::is_directory(DEVPLACE_SOURCE_CLUSTERS_DIR)) return DEVPLACE_SOURCE_CLUSTERS_DIR;
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "devplace" / "clusters";
    if (fs::is_directory(installed)) return installed.string();
  }
  return "clusters";
}

std::vector<std::string> list_presets() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(preset_directory(), ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<Cluster> load_cluster(const std::string& spec) {
  std::error_code ec;
  if (spec.find('/') != std::string::npos || (spec.size() > 5 && spec.substr(spec.size() - 5) == ".json") ||
      fs::is_regular_file(spec, ec)) {
    return read_cluster_file(spec);
  }
  const fs::path preset = fs::path(preset_directory()) / (spec + ".json");
  if (fs::is_regular_file(preset, ec)) return read_cluster_file(preset.string());
  std::string known;
  for (const std::string& n : list_presets()) known += (known.empty() ? "" : ", ") + n;
  return not_found("unknown cluster '" + spec + "' (presets: " + (known.empty() ? "none found in " + preset_directory() : known) +
                   "; or give a path to a cluster JSON file)");
}

}  // namespace devplace
