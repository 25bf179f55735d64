// File: expert.h
// ExpertPlacer: the hand-made placements of the papers, from layer marks.
#pragma once

#include "place/placer.h"

namespace devplace {

// "expert": contiguous runs of layer marks on successive GPUs. With M marks
// (0..M-1) and G GPUs, mark m goes to GPU floor(m * G / M). The zoo numbers
// its layers so that this is the paper's expert placement: for RNNLM and NMT
// one LSTM layer per GPU (embeddings with the first layer, attention and
// softmax with the last), for Inception-V3 contiguous parts of roughly equal
// layer counts. For any other graph with layer marks it is the contiguous
// equal-layer split. Ops without a mark (-1) follow their first marked
// producer in topological order (else their first marked consumer, else
// GPU 0); ops that cannot run on a GPU (data inputs) stay on the CPU. On a
// cluster without GPUs everything goes to the CPU.
class ExpertPlacer : public Placer {
 public:
  std::string_view name() const override { return "expert"; }
  Result<Placement> place(const PlaceContext& context) override;
};

}  // namespace devplace
