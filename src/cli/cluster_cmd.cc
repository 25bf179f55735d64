// File: cluster_cmd.cc
// `devplace cluster list` and `devplace cluster show NAME`.
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "common/format.h"
#include "cluster/cluster_json.h"

namespace devplace::cli {

namespace {

const CommandSpec kSpec = {
    "devplace cluster list | devplace cluster show CL [--routes] [--json]",
    "'list' prints the presets shipped under clusters/; 'show' prints one cluster (a preset name or a\n"
    "cluster JSON file): its devices, links and the notes on where its figures come from.",
    {{"routes", "", "with show: print the route between every pair of devices"},
     {"json", "", "print JSON"}},
    /*positional=*/true,
};

Status list_clusters(bool as_json) {
  json::Json all = json::Json::array();
  std::vector<std::string> names = list_presets();
  if (names.empty()) return not_found("no cluster presets found in " + preset_directory());
  if (!as_json) std::cout << pad_right("name", 10) << pad_left("devices", 8) << "  description\n";
  for (const std::string& name : names) {
    DEVPLACE_ASSIGN_OR_RETURN(Cluster c, load_cluster(name));
    if (as_json) {
      all.push_back({{"name", name}, {"devices", c.num_devices()}, {"description", c.description()}});
    } else {
      std::cout << pad_right(name, 10) << pad_left(std::to_string(c.num_devices()), 8) << "  " << c.description() << "\n";
    }
  }
  if (as_json) std::cout << all.dump(2) << "\n";
  return Status::ok_status();
}

Status show_cluster(const std::string& spec, bool routes, bool as_json) {
  DEVPLACE_ASSIGN_OR_RETURN(Cluster c, load_cluster(spec));
  if (as_json) {
    std::cout << cluster_to_json(c).dump(2) << "\n";
    return Status::ok_status();
  }
  std::cout << c.name() << ": " << c.description() << "\n\n";
  std::cout << pad_right("device", 10) << pad_right("kind", 5) << pad_left("peak", 14) << pad_left("memory", 12)
            << pad_left("bandwidth", 13) << pad_left("launch", 10) << "  model\n";
  for (const Device& d : c.devices()) {
    char peak[32];
    std::snprintf(peak, sizeof peak, "%.2f TFLOP/s", d.peak_flops / 1e12);
    std::cout << pad_right(d.name, 10) << pad_right(std::string(device_kind_name(d.kind)), 5) << pad_left(peak, 14)
              << pad_left(format_bytes(d.memory_bytes), 12) << pad_left(format_rate(d.memory_bandwidth_bytes_per_s), 13)
              << pad_left(format_seconds(d.launch_overhead_s), 10) << "  " << d.model << "\n";
  }
  if (!c.switches().empty()) {
    std::cout << "\nswitches: ";
    for (size_t i = 0; i < c.switches().size(); ++i) std::cout << (i ? ", " : "") << c.switches()[i];
    std::cout << "\n";
  }
  std::cout << "\n" << pad_right("link", 34) << pad_left("bandwidth/dir", 14) << pad_left("latency", 10) << "\n";
  for (const Link& l : c.links()) {
    std::cout << pad_right(l.a + " <-> " + l.b, 34) << pad_left(format_rate(l.bandwidth_bytes_per_s), 14)
              << pad_left(format_seconds(l.latency_s), 10) << "\n";
  }
  if (routes) {
    std::cout << "\n" << pad_right("route", 22) << pad_left("hops", 5) << pad_left("bottleneck", 12) << pad_left("latency", 10) << "  via\n";
    for (DeviceId a = 0; a < c.num_devices(); ++a) {
      for (DeviceId b = 0; b < c.num_devices(); ++b) {
        if (a == b) continue;
        const Route& r = c.route(a, b);
        std::string via;
        for (ChannelId ch : r.channels) via += (via.empty() ? "" : ", ") + c.channel_name(ch);
        std::cout << pad_right(c.device(a).name + " -> " + c.device(b).name, 22) << pad_left(std::to_string(r.channels.size()), 5)
                  << pad_left(format_rate(r.bandwidth_bytes_per_s), 12) << pad_left(format_seconds(r.latency_s), 10) << "  " << via << "\n";
      }
    }
  }
  if (!c.notes().empty()) {
    std::cout << "\nnotes:\n";
    for (const std::string& n : c.notes()) std::cout << "  - " << n << "\n";
  }
  return Status::ok_status();
}

}  // namespace

Status run_cluster(const ArgList& argv) {
  DEVPLACE_ASSIGN_OR_RETURN(Args args, Args::parse(kSpec, argv));
  const std::vector<std::string>& pos = args.positional();
  if (args.help_requested()) {
    std::cout << help_text(kSpec);
    return Status::ok_status();
  }
  if (pos.size() == 1 && pos[0] == "list") return list_clusters(args.flag("json"));
  if (pos.size() == 2 && pos[0] == "show") return show_cluster(pos[1], args.flag("routes"), args.flag("json"));
  return invalid_input("usage: " + kSpec.usage);
}

}  // namespace devplace::cli
