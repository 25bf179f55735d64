// File: training_state.cc
// Checkpoints, the training log and the thread setting (training_state.h).
#include "rl/training_state.h"

#include "rl/cpu_block_cache.h"
#include "common/file_io.h"

#include <dlfcn.h>
#include <malloc.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

namespace devplace::rl {

namespace {

torch::Tensor scalar(double v) { return torch::tensor({v}, torch::kDouble); }
torch::Tensor scalar(int64_t v) { return torch::tensor({v}, torch::kLong); }

}  // namespace

int64_t name_hash(std::string_view name) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (char c : name) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  return static_cast<int64_t>(h >> 1);
}

int64_t network_hash(const PlacementPolicy& network) {
  std::string text = network.fixed_settings() + ";";
  for (const auto& item : network.named_parameters()) {
    text += item.key();
    for (int64_t n : item.value().sizes()) {
      text += ':';
      text += std::to_string(n);
    }
    text += ";";
  }
  return name_hash(text);
}

Status save_checkpoint(const std::string& path, PlacementPolicy& policy, torch::optim::Optimizer& optimizer,
                       const TrainState& state, const Fingerprint& fp) {
  try {
    torch::serialize::OutputArchive archive;
    archive.write("version", scalar(kCheckpointVersion));
    archive.write("units", scalar(fp.units));
    archive.write("devices", scalar(fp.devices));
    archive.write("samples", scalar(fp.samples));
    archive.write("method", scalar(fp.method));
    archive.write("network", scalar(fp.network));
    archive.write("iteration", scalar(state.iteration));
    archive.write("evaluations", scalar(state.evaluations));
    archive.write("baseline", scalar(state.baseline));
    archive.write("elapsed_s", scalar(state.elapsed_s));
    archive.write("best_cost", scalar(state.best_cost));
    std::vector<int64_t> best(state.best.begin(), state.best.end());
    archive.write("best", torch::tensor(best, torch::kLong));
    const int64_t ne = static_cast<int64_t>(state.elite_actions.size());
    const int64_t na = ne > 0 ? static_cast<int64_t>(state.elite_actions[0].size()) : 0;
    torch::Tensor elites = torch::zeros({ne, na}, torch::kLong);
    for (int64_t e = 0; e < ne; ++e) {
      for (int64_t a = 0; a < na; ++a) elites[e][a] = state.elite_actions[e][a];
    }
    archive.write("elite_actions", elites);
    archive.write("elite_costs", torch::tensor(state.elite_costs, torch::kDouble).reshape({ne}));
    archive.write("restarts", scalar(state.restarts));
    archive.write("restart_iteration", scalar(state.restart_iteration));
    archive.write("restart_evaluations", scalar(state.restart_evaluations));
    archive.write("best_evaluations", scalar(state.best_evaluations));
    torch::serialize::OutputArchive policy_archive, optimizer_archive;
    policy.save(policy_archive);
    optimizer.save(optimizer_archive);
    archive.write("policy", policy_archive);
    archive.write("optimizer", optimizer_archive);
    save_archive_atomically(archive, path);
  } catch (const std::exception& e) {
    return internal_error(path + ": cannot write the checkpoint: " + std::string(e.what()).substr(0, 200));
  }
  return Status::ok_status();
}

Status load_checkpoint(const std::string& path, PlacementPolicy& policy, torch::optim::Optimizer& optimizer, TrainState& state,
                       const Fingerprint& fp, std::string_view method) {
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const std::exception&) {
    return invalid_input(path + ": not a devplace checkpoint (cannot read it)");
  }
  try {
    // A fresh tensor per read: read() into a defined tensor keeps its dtype.
    auto read_long = [&](const char* key) {
      torch::Tensor t;
      archive.read(key, t);
      return t.item<int64_t>();
    };
    auto read_double = [&](const char* key) {
      torch::Tensor t;
      archive.read(key, t);
      return t.item<double>();
    };
    const int64_t version = read_long("version");
    if (version != kCheckpointVersion && version != 4) return invalid_input(path + ": a checkpoint of another devplace version");
    Fingerprint saved{read_long("units"), read_long("devices"), read_long("samples"), read_long("method"), read_long("network")};
    if (saved.method != fp.method) return invalid_input(path + ": not a checkpoint of method '" + std::string(method) + "'");
    if (saved.network != fp.network)
      return invalid_input(path + ": made for a network of another shape or settings (another --policy-hidden, --attention, --neighbours, --stickiness, --affinity or --load-input)");
    if (!(saved == fp)) {
      return invalid_input(path + ": made for " + std::to_string(saved.units) + " groups on " + std::to_string(saved.devices) +
                           " devices with " + std::to_string(saved.samples) + " samples per update; this run has " +
                           std::to_string(fp.units) + " groups on " + std::to_string(fp.devices) + " devices with " +
                           std::to_string(fp.samples));
    }
    state.iteration = read_long("iteration");
    state.evaluations = read_long("evaluations");
    state.baseline = read_double("baseline");
    state.elapsed_s = read_double("elapsed_s");
    state.best_cost = read_double("best_cost");
    torch::Tensor t;
    archive.read("best", t);
    state.best.assign(t.data_ptr<int64_t>(), t.data_ptr<int64_t>() + t.numel());
    torch::Tensor elites, elite_costs;
    archive.read("elite_actions", elites);
    archive.read("elite_costs", elite_costs);
    if (elites.dim() != 2 || elite_costs.dim() != 1 || elites.size(0) != elite_costs.size(0) || elites.scalar_type() != torch::kLong ||
        elite_costs.scalar_type() != torch::kDouble)
      return invalid_input(path + ": a damaged checkpoint (its elite samples have the wrong shape)");
    elites = elites.contiguous();
    state.elite_actions.clear();
    for (int64_t e = 0; e < elites.size(0); ++e)
      state.elite_actions.emplace_back(elites[e].data_ptr<int64_t>(), elites[e].data_ptr<int64_t>() + elites.size(1));
    state.elite_costs.assign(elite_costs.data_ptr<double>(), elite_costs.data_ptr<double>() + elite_costs.numel());
    if (version >= 5) {
      state.restarts = read_long("restarts");
      state.restart_iteration = read_long("restart_iteration");
      state.restart_evaluations = read_long("restart_evaluations");
      state.best_evaluations = read_long("best_evaluations");
    } else {
      state.best_evaluations = state.evaluations;  // unknown: --restart-after counts from the resume
    }
    torch::serialize::InputArchive policy_archive, optimizer_archive;
    archive.read("policy", policy_archive);
    archive.read("optimizer", optimizer_archive);
    policy.load(policy_archive);
    optimizer.load(optimizer_archive);
  } catch (const std::exception&) {
    return invalid_input(path + ": a damaged or foreign checkpoint (a field is missing or has the wrong shape)");
  }
  if (!state.best.empty() && static_cast<int64_t>(state.best.size()) != fp.units) {
    return invalid_input(path + ": its best placement has the wrong size");
  }
  return Status::ok_status();
}

Result<TrainingLog> TrainingLog::open(const std::string& path, int64_t resume_iteration) {
  TrainingLog log;
  if (path.empty()) return log;
  static const std::string kHeader = "iteration,wall_s,evaluations,mean_step_s,best_step_s,baseline_s,entropy,valid_fraction,learning_rate";
  std::string kept;
  if (resume_iteration > 0 && std::filesystem::exists(path)) {
    std::ifstream in(path);
    std::string line;
    // A log written before the restarts column (a version 4 checkpoint's
    // run) gains it, as 0, so that its rows and the new ones agree.
    bool without_restarts = false;
    while (std::getline(in, line)) {
      const bool header = !line.empty() && !std::isdigit(static_cast<unsigned char>(line[0]));
      if (header) without_restarts = line == kHeader;
      if (header || std::strtoll(line.c_str(), nullptr, 10) <= resume_iteration)
        kept += line + (without_restarts ? (header ? ",restarts" : ",0") : "") + "\n";
    }
  }
  if (kept.empty()) kept = kHeader + ",restarts\n";
  log.out_ = std::make_unique<std::ofstream>(path, std::ios::trunc);
  if (!*log.out_) return invalid_input(path + ": cannot write the training log");
  *log.out_ << kept;
  log.out_->flush();
  return log;
}

void TrainingLog::row(int64_t iteration, double wall_s, int64_t evaluations, double mean_s, double best_s, double baseline,
                      double entropy, double valid_fraction, double lr, int64_t restarts) {
  if (!out_) return;
  auto num = [](double v) {
    if (!std::isfinite(v)) return std::string();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", v);
    return std::string(buf);
  };
  *out_ << iteration << ',' << num(wall_s) << ',' << evaluations << ',' << num(mean_s) << ',' << num(best_s) << ','
        << num(baseline) << ',' << num(entropy) << ',' << num(valid_fraction) << ',' << num(lr) << ',' << restarts << '\n';
  out_->flush();
}

// One thread for torch and for the BLAS under it: a policy's matrices are
// small, and OpenBLAS's own pool (which torch::set_num_threads does not
// reach) spends its time in sched_yield. Found at run time, so any BLAS
// works.
void save_archive_atomically(torch::serialize::OutputArchive& archive, const std::string& path) {
  const std::string target = replacement_target(path);
  const std::string tmp = target + ".tmp";
  archive.save_to(tmp);
  std::filesystem::rename(tmp, target);
}

void use_one_thread() {
  // An update allocates and frees the same large buffers (the decoder's
  // attention over every step is K x G x G floats: 27 MB for NMT's 647
  // groups) again and again. glibc serves blocks over 128 KB with mmap
  // and returns them on free, so every update paid page faults and
  // zeroing for them: a third of its CPU time (NMT on k80x4, perf). Keep
  // them in the heap instead, up to glibc's largest threshold (32 MB).
  // Blocks over 32 MB (the hierarchical planner's per-sample groupings)
  // are glibc's to mmap whatever the threshold: the block cache keeps them.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  use_cpu_block_cache();
  torch::set_num_threads(1);
  using SetThreads = void (*)(int);
  for (const char* name : {"openblas_set_num_threads", "goto_set_num_threads"}) {
    if (auto set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, name))) {
      set(1);
      return;
    }
  }
}

std::string format_ms(double s) {
  if (!std::isfinite(s)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  return buf;
}

}  // namespace devplace::rl
