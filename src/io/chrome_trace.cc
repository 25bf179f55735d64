// File: chrome_trace.cc
// Chrome trace writer (see chrome_trace.h).
#include "io/chrome_trace.h"

#include "common/file_io.h"

namespace devplace {

using json::Json;

namespace {

constexpr int kDevicesPid = 1;
constexpr int kLinksPid = 2;
constexpr double kUs = 1e6;

Json metadata(const char* what, int pid, int tid, const std::string& name) {
  Json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

}  // namespace

Json chrome_trace_json(const Problem& problem, const SimResult& result) {
  const Graph& g = problem.graph();
  const Cluster& c = problem.cluster();
  Json events = Json::array();
  events.push_back(metadata("process_name", kDevicesPid, -1, "devices"));
  events.push_back(metadata("process_name", kLinksPid, -1, "links"));
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    events.push_back(metadata("thread_name", kDevicesPid, d, c.device(d).name));
    events.push_back({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", kDevicesPid}, {"tid", d}, {"args", {{"sort_index", d}}}});
  }
  for (ChannelId ch = 0; ch < c.num_channels(); ++ch) {
    if (result.channels[ch].num_transfers > 0) events.push_back(metadata("thread_name", kLinksPid, ch, c.channel_name(ch)));
  }
  for (const OpInterval& o : result.ops) {
    const Op& op = g.op(o.op);
    events.push_back({{"ph", "X"},
                      {"pid", kDevicesPid},
                      {"tid", o.device},
                      {"name", op.name},
                      {"cat", std::string(op_phase_name(op.phase))},
                      {"ts", o.start_s * kUs},
                      {"dur", (o.end_s - o.start_s) * kUs},
                      {"args", {{"type", op.type}, {"flops", op.flops}}}});
  }
  for (const TransferInterval& t : result.transfers) {
    const Tensor& tensor = g.tensor(t.tensor);
    const Route& route = c.route(t.from, t.to);
    for (ChannelId ch : route.channels) {
      events.push_back({{"ph", "X"},
                        {"pid", kLinksPid},
                        {"tid", ch},
                        {"name", tensor.name},
                        {"cat", "transfer"},
                        {"ts", t.start_s * kUs},
                        {"dur", (t.end_s - t.start_s) * kUs},
                        {"args", {{"bytes", tensor.bytes}, {"from", c.device(t.from).name}, {"to", c.device(t.to).name}}}});
    }
  }
  for (const MemorySample& m : result.memory) {
    events.push_back({{"ph", "C"},
                      {"pid", kDevicesPid},
                      {"name", "memory " + c.device(m.device).name},
                      {"ts", m.time_s * kUs},
                      {"args", {{"bytes", m.bytes}}}});
  }
  return Json{{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"graph", g.name()}, {"cluster", c.name()}, {"step_time_s", result.step_time_s}}}};
}

Status write_chrome_trace(const std::string& path, const Problem& problem, const SimResult& result) {
  return write_text_file(path, chrome_trace_json(problem, result).dump() + "\n");
}

}  // namespace devplace
