// File: graph_encoder.cc
// Message passing over the group graph (see graph_encoder.h).
#include "rl/graph_encoder.h"

#include <string>

namespace devplace::rl {

GraphEdges graph_edges(const PlacedNeighbours& neighbours, int64_t num_groups) {
  std::vector<int64_t> reader, source;
  std::vector<float> weight;
  std::vector<double> out_total(static_cast<size_t>(num_groups), 0.0);
  for (int64_t g = 0; g < num_groups; ++g) {
    for (int64_t k = neighbours.offsets[g]; k < neighbours.offsets[g + 1]; ++k) {
      reader.push_back(g);
      source.push_back(neighbours.index[k]);
      weight.push_back(neighbours.weight[k]);
      out_total[neighbours.index[k]] += neighbours.weight[k];
    }
  }
  std::vector<float> successor(weight.size());
  for (size_t e = 0; e < weight.size(); ++e) {
    const double total = out_total[source[e]];
    successor[e] = total > 0 ? static_cast<float>(weight[e] / total) : 0.0f;
  }
  const int64_t n = static_cast<int64_t>(reader.size());
  GraphEdges edges;
  edges.reader = torch::from_blob(reader.data(), {n}, torch::kLong).clone();
  edges.source = torch::from_blob(source.data(), {n}, torch::kLong).clone();
  edges.weight = torch::from_blob(weight.data(), {n, 1}, torch::kFloat).clone();
  edges.successor_weight = torch::from_blob(successor.data(), {n, 1}, torch::kFloat).clone();
  return edges;
}

GraphEncoderImpl::GraphEncoderImpl(int in_width, int out_width, int rounds) {
  input_ = register_module("input", torch::nn::Linear(in_width, out_width));
  for (int l = 0; l < rounds; ++l)
    rounds_.push_back(register_module("round" + std::to_string(l), torch::nn::Linear(4 * out_width, out_width)));
}

torch::Tensor GraphEncoderImpl::forward(const torch::Tensor& x, const GraphEdges& edges) {
  torch::Tensor h = torch::relu(input_->forward(x));
  for (torch::nn::Linear& round : rounds_) {
    const torch::Tensor pred = torch::zeros_like(h).index_add(0, edges.reader, h.index_select(0, edges.source) * edges.weight);
    const torch::Tensor succ =
        torch::zeros_like(h).index_add(0, edges.source, h.index_select(0, edges.reader) * edges.successor_weight);
    const torch::Tensor global = h.mean(0, /*keepdim=*/true).expand_as(h);
    h = h + torch::relu(round->forward(torch::cat({h, pred, succ, global}, 1)));
  }
  return h;
}

}  // namespace devplace::rl
