// File: validate.h
// Checks a graph's ops and tensors for everything a user's file can get wrong:
// negative sizes or costs, dangling tensor ids, tensors with no producer or two,
// duplicate names, ops with no kernel at all, and cycles (reported with the
// cycle's ops). GraphBuilder::build calls it; nothing downstream re-checks input.
#pragma once

#include <vector>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

// Validates the raw parts of a graph before consumer lists exist.
Status validate_graph_parts(const std::vector<Op>& ops, const std::vector<Tensor>& tensors);

// Returns a topological order (Kahn's algorithm, smallest ready id first), or
// an error naming the ops of one cycle: "cycle: a -> b -> a".
Result<std::vector<OpId>> topological_order(const std::vector<Op>& ops,
                                            const std::vector<Tensor>& tensors);

}  // namespace devplace
