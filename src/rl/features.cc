// File: features.cc
// Group feature vectors for the policy (see features.h).
#include "rl/features.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string_view>
#include <utility>

namespace devplace::rl {

int feature_dim(int num_devices) { return kDeviceFeatures + num_devices; }

namespace {
// FNV-1a: a hash that does not change between library versions or runs.
uint32_t type_bucket(std::string_view type) {
  uint32_t h = 2166136261u;
  for (char c : type) h = (h ^ static_cast<uint8_t>(c)) * 16777619u;
  return h % kTypeBuckets;
}
}  // namespace

GroupFeatures group_features(const Problem& problem, const Grouping& grouping) {
  const Graph& g = problem.graph();
  const int ng = grouping.num_groups();
  const int nd = problem.num_devices();
  GroupFeatures f;
  f.num_groups = ng;
  f.dim = feature_dim(nd);
  f.values.assign(static_cast<size_t>(ng) * f.dim, 0.0f);

  std::vector<double> out_bytes(ng), resident(ng), work(ng);
  std::vector<std::vector<int32_t>> reads(ng), writes(ng);
  for (int32_t grp = 0; grp < ng; ++grp) {
    float* row = &f.values[static_cast<size_t>(grp) * f.dim];
    const std::vector<OpId>& ops = grouping.ops(grp);
    for (OpId op : ops) row[type_bucket(g.op(op).type)] += 1.0f / static_cast<float>(ops.size());
    double fastest = std::numeric_limits<double>::infinity();
    for (DeviceId d = 0; d < nd; ++d) fastest = std::min(fastest, grouping.work_s(grp, d));
    out_bytes[grp] = std::log1p(static_cast<double>(grouping.output_bytes(grp)));
    resident[grp] = std::log1p(static_cast<double>(grouping.resident_bytes(grp)));
    work[grp] = std::log1p(std::isfinite(fastest) ? fastest * 1e6 : 0.0);
    for (DeviceId d = 0; d < nd; ++d) row[kDeviceFeatures + d] = grouping.allows(grp, d) ? 1.0f : 0.0f;
    // The largest output's shape, the first of equals.
    const Tensor* largest = nullptr;
    for (OpId op : ops) {
      for (TensorId t : g.op(op).outputs) {
        if (largest == nullptr || g.tensor(t).bytes > largest->bytes) largest = &g.tensor(t);
      }
    }
    if (largest != nullptr) {
      const std::vector<int64_t>& shape = largest->shape;
      const size_t n = std::min<size_t>(shape.size(), kShapeDims);
      for (size_t i = 0; i < n; ++i) {
        const int64_t dim = shape[shape.size() - n + i];
        row[kShapeFeatures + kShapeDims - n + i] = static_cast<float>(std::log1p(static_cast<double>(std::max<int64_t>(0, dim))));
      }
    }
  }
  float top_dim = 0;
  for (int32_t grp = 0; grp < ng; ++grp) {
    for (int i = 0; i < kShapeDims; ++i) top_dim = std::max(top_dim, f.values[static_cast<size_t>(grp) * f.dim + kShapeFeatures + i]);
  }
  if (top_dim > 0) {
    for (int32_t grp = 0; grp < ng; ++grp) {
      for (int i = 0; i < kShapeDims; ++i) f.values[static_cast<size_t>(grp) * f.dim + kShapeFeatures + i] /= top_dim;
    }
  }
  for (const Tensor& t : g.tensors()) {
    const int32_t from = grouping.group_of(t.producer);
    for (OpId c : t.consumers) {
      const int32_t to = grouping.group_of(c);
      if (to == from) continue;
      writes[from].push_back(to);
      reads[to].push_back(from);
    }
  }
  std::vector<double> n_reads(ng), n_writes(ng);
  for (int32_t grp = 0; grp < ng; ++grp) {
    for (auto* list : {&reads[grp], &writes[grp]}) {
      std::sort(list->begin(), list->end());
      list->erase(std::unique(list->begin(), list->end()), list->end());
    }
    n_reads[grp] = static_cast<double>(reads[grp].size());
    n_writes[grp] = static_cast<double>(writes[grp].size());
  }
  auto put = [&](const std::vector<double>& column, int k) {
    const double top = column.empty() ? 0.0 : *std::max_element(column.begin(), column.end());
    for (int32_t grp = 0; grp < ng; ++grp) f.values[static_cast<size_t>(grp) * f.dim + k] = top > 0 ? static_cast<float>(column[grp] / top) : 0.0f;
  };
  put(out_bytes, kSizeFeatures + 0);
  put(resident, kSizeFeatures + 1);
  put(work, kSizeFeatures + 2);
  put(n_reads, kSizeFeatures + 3);
  put(n_writes, kSizeFeatures + 4);
  for (int32_t grp = 0; grp < ng; ++grp)
    f.values[static_cast<size_t>(grp) * f.dim + kSizeFeatures + 5] = ng > 1 ? static_cast<float>(grp) / static_cast<float>(ng - 1) : 0.0f;
  return f;
}

PortableFeatures portable_features(const Problem& problem, const Grouping& grouping) {
  const int ng = grouping.num_groups();
  const int nd = problem.num_devices();
  const GroupFeatures full = group_features(problem, grouping);
  PortableFeatures f;
  f.num_groups = ng;
  f.num_devices = nd;
  f.group.resize(static_cast<size_t>(ng) * kPortableGroupFeatures);
  f.pair.assign(static_cast<size_t>(ng) * nd * kPairFeatures, 0.0f);
  f.allowed.assign(static_cast<size_t>(ng) * nd, 0);
  f.work.assign(static_cast<size_t>(ng) * nd, 0.0f);
  f.memory.assign(static_cast<size_t>(ng) * nd, 0.0f);
  double total_resident = 0, total_work = 0;
  for (int32_t g = 0; g < ng; ++g) {
    total_resident += static_cast<double>(grouping.resident_bytes(g));
    double fastest = std::numeric_limits<double>::infinity();
    for (DeviceId d = 0; d < nd; ++d) {
      if (grouping.allows(g, d)) fastest = std::min(fastest, grouping.work_s(g, d));
    }
    if (std::isfinite(fastest)) total_work += fastest;
  }
  const double log32 = std::log(32.0);
  for (int32_t g = 0; g < ng; ++g) {
    for (int k = 0; k < kPortableGroupFeatures; ++k) f.group[static_cast<size_t>(g) * kPortableGroupFeatures + k] = full.at(g, k);
    double fastest = std::numeric_limits<double>::infinity();
    for (DeviceId d = 0; d < nd; ++d) {
      if (grouping.allows(g, d)) fastest = std::min(fastest, grouping.work_s(g, d));
    }
    for (DeviceId d = 0; d < nd; ++d) {
      float* pair = &f.pair[(static_cast<size_t>(g) * nd + d) * kPairFeatures];
      f.allowed[static_cast<size_t>(g) * nd + d] = grouping.allows(g, d) ? 1 : 0;
      const double t = grouping.work_s(g, d);
      double speed = 1.0;
      if (fastest > 0 && std::isfinite(fastest)) speed = std::isfinite(t) && t > 0 ? 1.0 + std::log(fastest / t) / log32 : 0.0;
      pair[0] = static_cast<float>(std::clamp(speed, 0.0, 1.0));
      const double capacity = static_cast<double>(problem.cluster().device(d).memory_bytes);
      pair[1] = total_resident > 0 ? static_cast<float>(std::min(1.0, capacity / total_resident)) : 1.0f;
      const double weight = capacity > 0 ? static_cast<double>(grouping.resident_bytes(g)) / capacity : 1.0;
      pair[2] = static_cast<float>(std::min(1.0, weight));
      const size_t at = static_cast<size_t>(g) * nd + d;
      f.memory[at] = static_cast<float>(std::min(weight, 4.0));
      if (grouping.allows(g, d) && std::isfinite(t) && total_work > 0) f.work[at] = static_cast<float>(std::min(t / total_work, 4.0));
    }
  }
  return f;
}

std::vector<ExchangedBytes> exchanged_bytes(const Problem& problem, const Grouping& grouping) {
  const Graph& g = problem.graph();
  std::vector<ExchangedBytes> pairs;
  std::vector<int32_t> readers;
  for (const Tensor& t : g.tensors()) {
    const int32_t from = grouping.group_of(t.producer);
    readers.clear();
    for (OpId c : t.consumers) {
      const int32_t to = grouping.group_of(c);
      if (to != from) readers.push_back(to);
    }
    std::sort(readers.begin(), readers.end());
    readers.erase(std::unique(readers.begin(), readers.end()), readers.end());
    const double bytes = static_cast<double>(std::max<int64_t>(t.bytes, 1));
    for (int32_t to : readers) pairs.push_back({std::min(from, to), std::max(from, to), bytes});
  }
  std::sort(pairs.begin(), pairs.end(), [](const ExchangedBytes& a, const ExchangedBytes& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  });
  size_t out = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (out > 0 && pairs[out - 1].first == pairs[i].first && pairs[out - 1].second == pairs[i].second) {
      pairs[out - 1].bytes += pairs[i].bytes;
    } else {
      pairs[out++] = pairs[i];
    }
  }
  pairs.resize(out);
  return pairs;
}

PlacedNeighbours placed_neighbours(const std::vector<ExchangedBytes>& pairs, const int64_t* group_of, int num_groups) {
  // Bytes per (later group, earlier group), and each group's total.
  std::vector<std::vector<std::pair<int32_t, double>>> earlier(num_groups);
  std::vector<double> total(num_groups, 0.0);
  for (const ExchangedBytes& p : pairs) {
    const auto a = static_cast<int32_t>(group_of[p.first]), b = static_cast<int32_t>(group_of[p.second]);
    if (a == b) continue;
    total[a] += p.bytes;
    total[b] += p.bytes;
    earlier[std::max(a, b)].push_back({std::min(a, b), p.bytes});
  }
  PlacedNeighbours n;
  n.offsets.reserve(static_cast<size_t>(num_groups) + 1);
  n.offsets.push_back(0);
  for (int32_t grp = 0; grp < num_groups; ++grp) {
    std::vector<std::pair<int32_t, double>>& list = earlier[grp];
    std::sort(list.begin(), list.end());
    for (size_t i = 0; i < list.size();) {
      size_t j = i;
      double bytes = 0;
      for (; j < list.size() && list[j].first == list[i].first; ++j) bytes += list[j].second;
      n.index.push_back(list[i].first);
      n.weight.push_back(static_cast<float>(bytes / total[grp]));
      i = j;
    }
    n.offsets.push_back(static_cast<int64_t>(n.index.size()));
  }
  return n;
}

PlacedNeighbours placed_neighbours(const Problem& problem, const Grouping& grouping) {
  std::vector<int64_t> identity(static_cast<size_t>(grouping.num_groups()));
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int64_t>(i);
  return placed_neighbours(exchanged_bytes(problem, grouping), identity.data(), grouping.num_groups());
}

std::vector<float> speed_prior_bonus(const Grouping& grouping, int num_devices, double weight) {
  const int ng = grouping.num_groups();
  std::vector<float> bonus(static_cast<size_t>(ng) * num_devices, 0.0f);
  for (int32_t g = 0; g < ng; ++g) {
    double fastest = std::numeric_limits<double>::infinity();
    for (DeviceId d = 0; d < num_devices; ++d) {
      if (grouping.allows(g, d)) fastest = std::min(fastest, grouping.work_s(g, d));
    }
    if (!(fastest > 0) || !std::isfinite(fastest)) continue;
    for (DeviceId d = 0; d < num_devices; ++d) {
      const double t = grouping.work_s(g, d);
      if (grouping.allows(g, d) && std::isfinite(t)) bonus[static_cast<size_t>(g) * num_devices + d] = static_cast<float>(weight * std::log(fastest / t));
    }
  }
  return bonus;
}

}  // namespace devplace::rl
