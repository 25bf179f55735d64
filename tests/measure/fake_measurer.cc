// File: fake_measurer.cc
// A test double of an external measurer (docs/measurer.md): it speaks the
// protocol, answers with a made-up step time that depends on the placement
// (the busiest device's op count x 1 ms, plus 0.1 ms per device used), and
// can be told to be slow or to fail:
//   --sleep-ms N        take N ms per measurement (stands in for a real run)
//   --fault-every N     every Nth measure request (counted across restarts
//                       with --state FILE) crashes, hangs or prints garbage,
//                       in turn
//   --state FILE        the request counter, kept across restarts
//   --hang-first N      the first N measure requests (counted as above) hang
//   --max-ops N         a device with more than N ops answers oom
//   --hello error|crash|hang   how to answer hello (default: ready)
//   --start-faults N    the first N starts (counted in FILE.starts with
//                       --state FILE) exit before answering hello
//   --record FILE       append each measured placement's id (one per line)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

struct Options {
  int sleep_ms = 0;
  int fault_every = 0;
  std::string state;
  int max_ops = -1;
  std::string hello = "ready";
  std::string record;
  int start_faults = 0;
  int hang_first = 0;
};

// Counts this start in STATE.starts; the number of this start.
long next_start_number(const Options& o) {
  const std::string path = o.state + ".starts";
  long n = 0;
  {
    std::ifstream in(path);
    in >> n;
  }
  ++n;
  std::ofstream(path) << n << "\n";
  return n;
}

long next_request_number(const Options& o) {
  static long in_memory = 0;
  if (o.state.empty()) return ++in_memory;
  long n = 0;
  {
    std::ifstream in(o.state);
    in >> n;
  }
  ++n;
  std::ofstream(o.state) << n << "\n";
  return n;
}

void say(const json& j) { std::cout << j.dump() << std::endl; }

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--sleep-ms") o.sleep_ms = std::atoi(value.c_str());
    else if (flag == "--fault-every") o.fault_every = std::atoi(value.c_str());
    else if (flag == "--state") o.state = value;
    else if (flag == "--max-ops") o.max_ops = std::atoi(value.c_str());
    else if (flag == "--hello") o.hello = value;
    else if (flag == "--record") o.record = value;
    else if (flag == "--start-faults") o.start_faults = std::atoi(value.c_str());
    else if (flag == "--hang-first") o.hang_first = std::atoi(value.c_str());
    else {
      std::cerr << "fake_measurer: unknown option " << flag << "\n";
      return 2;
    }
  }
  size_t num_ops = 0;
  std::string line;
  while (std::getline(std::cin, line)) {
    const json msg = json::parse(line);
    const std::string type = msg.at("type");
    if (type == "hello") {
      if (o.hello == "crash") return 3;
      if (o.start_faults > 0 && next_start_number(o) <= o.start_faults) return 4;
      if (o.hello == "hang") std::this_thread::sleep_for(std::chrono::hours(1));
      if (o.hello == "error") {
        say({{"type", "error"}, {"message", "fake_measurer: told to refuse"}});
        continue;
      }
      num_ops = msg.at("graph").at("ops").size();
      say({{"type", "ready"}, {"measurer", "fake_measurer 1"}});
    } else if (type == "measure") {
      const long id = msg.at("id");
      const long n = next_request_number(o);
      if (n <= o.hang_first) std::this_thread::sleep_for(std::chrono::hours(1));
      if (o.fault_every > 0 && n % o.fault_every == 0) {
        switch ((n / o.fault_every) % 3) {
          case 0: return 3;                                               // crash
          case 1: std::this_thread::sleep_for(std::chrono::hours(1)); break;  // hang
          default: std::cout << "Traceback (most recent call last): garbage" << std::endl; continue;
        }
      }
      if (o.sleep_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o.sleep_ms));
      const json& placement = msg.at("placement");
      if (placement.size() != num_ops) {
        say({{"type", "result"}, {"id", id}, {"status", "error"}, {"message", "wrong placement length"}});
        continue;
      }
      std::map<int, int> ops_on;
      for (const json& d : placement) ++ops_on[d.get<int>()];
      int busiest = 0;
      for (auto [d, count] : ops_on) busiest = std::max(busiest, count);
      if (!o.record.empty()) std::ofstream(o.record, std::ios::app) << id << "\n";
      if (o.max_ops >= 0 && busiest > o.max_ops) {
        say({{"type", "result"}, {"id", id}, {"status", "oom"}, {"message", "too many ops on one device"}});
        continue;
      }
      const double t = 1e-3 * busiest + 1e-4 * static_cast<double>(ops_on.size());
      say({{"type", "result"}, {"id", id}, {"status", "ok"}, {"step_time_s", t}, {"samples_s", {t, t, t}}});
    } else if (type == "bye") {
      return 0;
    }
  }
  return 0;
}
