// File: graph_encoder.h
// A graph neural network encoder for the portable policy
// (portable_policy.h), the alternative to its sequence encoder (a
// bidirectional LSTM over the groups in topological order) that Placeto
// and GDP use: each group's state is refined by rounds of message passing
// over the group graph, so what a group sees of the graph is its
// neighbourhood, not its place in a sequence.
//
// Round l (GraphSAGE-style, residual):
//   h <- h + relu(W_l [h, pred(h), succ(h), mean(h)])
// pred(h)_g: the byte-weighted sum of the states of the groups g reads
// from (its weights sum to at most 1: PlacedNeighbours); succ(h)_g: the
// byte-weighted mean of the states of the groups that read from g; mean(h):
// the whole graph's mean state, the same for every group (a global view
// the sequence encoder has by its recurrence). Directions are kept apart
// because a DAG's producers and consumers play different parts in a
// schedule. Nothing depends on the graph's size. Only rl/ includes torch.
#pragma once

#include <torch/torch.h>

#include "rl/features.h"

namespace devplace::rl {

// The group graph's edges as tensors, built once per problem.
struct GraphEdges {
  torch::Tensor reader;      // [E] long: the group that reads (later in topological order)
  torch::Tensor source;      // [E] long: the group it reads from or exchanges with, placed before it
  torch::Tensor weight;      // [E, 1]: the edge's share of the reader's bytes
  torch::Tensor successor_weight;  // [E, 1]: the edge's share of the source's readers' weights (sums to 1 per source)
};
GraphEdges graph_edges(const PlacedNeighbours& neighbours, int64_t num_groups);

class GraphEncoderImpl : public torch::nn::Module {
 public:
  // in_width: the embedded group features' width; out_width: the states'.
  GraphEncoderImpl(int in_width, int out_width, int rounds);
  // x [G, in_width] -> states [G, out_width].
  torch::Tensor forward(const torch::Tensor& x, const GraphEdges& edges);

 private:
  torch::nn::Linear input_{nullptr};
  std::vector<torch::nn::Linear> rounds_;
};
TORCH_MODULE(GraphEncoder);

}  // namespace devplace::rl
