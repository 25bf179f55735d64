// File: expert.cc
// The expert placement: layer marks split contiguously over the GPUs (see expert.h).
#include "place/expert.h"

#include <algorithm>

#include "place/device_choice.h"

namespace devplace {

Result<Placement> ExpertPlacer::place(const PlaceContext& ctx) {
  const Problem& problem = ctx.problem;
  const Graph& g = problem.graph();
  const Cluster& c = problem.cluster();
  std::vector<DeviceId> gpus;
  for (DeviceId d = 0; d < c.num_devices(); ++d) {
    if (c.device(d).kind == DeviceKind::kGpu) gpus.push_back(d);
  }
  if (gpus.empty()) gpus.push_back(c.first_device_of_kind(DeviceKind::kCpu).value_or(0));

  // Each op's effective mark: its own, else its first marked producer's, else its first marked consumer's.
  std::vector<int32_t> mark(g.num_ops(), -1);
  int32_t max_mark = -1;
  for (OpId id : g.topo_order()) {
    const Op& op = g.op(id);
    mark[id] = op.layer;
    for (size_t i = 0; mark[id] < 0 && i < op.inputs.size(); ++i) mark[id] = mark[g.tensor(op.inputs[i]).producer];
    max_mark = std::max(max_mark, mark[id]);
  }
  const std::vector<OpId>& topo = g.topo_order();
  for (auto it = topo.rbegin(); it != topo.rend(); ++it) {
    if (mark[*it] >= 0) continue;
    for (TensorId t : g.op(*it).outputs) {
      for (OpId consumer : g.tensor(t).consumers) {
        if (mark[*it] < 0) mark[*it] = mark[consumer];
      }
    }
  }
  // Without marks every op would land on the first GPU: that is single-gpu,
  // not an expert's placement, and a table must not present it as one.
  if (max_mark < 0)
    return not_applicable("expert does not apply: the graph marks no layers (the papers' expert placement splits the "
                          "layers over the GPUs)");
  const int64_t num_marks = max_mark + 1;
  const int64_t num_gpus = static_cast<int64_t>(gpus.size());

  // A group takes the device of its first op's mark (its first op in
  // topological order: a forward op, since backward ops follow their forward op).
  std::vector<DeviceId> groups(ctx.grouping.num_groups());
  for (int32_t grp = 0; grp < ctx.grouping.num_groups(); ++grp) {
    const int32_t m = mark[ctx.grouping.ops(grp).front()];
    const DeviceId d = gpus[m < 0 ? 0 : static_cast<size_t>(m * num_gpus / num_marks)];
    groups[grp] = choose_allowed_device(problem, ctx.grouping, grp, d);
  }
  return ctx.grouping.to_placement(groups);
}

}  // namespace devplace
