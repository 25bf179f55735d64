// File: builders.h
// The zoo's model builders, one file each; zoo.cc registers them. Each reads
// its options from ZooOptions and returns a forward graph whose ops carry
// layer marks: the expert placement (place/expert.cc) puts contiguous runs
// of layer marks on successive GPUs, so each model numbers its layers so
// that this split is the paper's hand-made placement.
#pragma once

#include "common/status.h"
#include "graph/graph.h"
#include "zoo/zoo.h"

namespace devplace {

// Synthetic: `layers` layers of `width` MatMuls, op j of layer l reading ops
// j..j+fanin-1 (mod width) of layer l-1; a Loss reads the last layer.
// Options: layers (16), width (4), fanin (2), batch (64), hidden (1024).
Result<Graph> build_layered(ZooOptions& options);

// Generated recurrent (recurrent.cc): `layers` stacked Elman cells (h' =
// tanh([x, h] W + b), weights shared over time) unrolled over `steps`, a
// linear readout and a softmax loss per step. Options: layers (4), hidden
// (1024), steps (20), batch (64), classes (1000).
Result<Graph> build_recurrent(ZooOptions& options);

// RNNLM (rnnlm.cc): 2-layer LSTM language model, hidden 2048, unroll 40, batch 64.
Result<Graph> build_rnnlm(ZooOptions& options);

// NMT (nmt.cc): LSTM encoder-decoder with attention, hidden 1024, unroll 40 + 40, batch 64.
Result<Graph> build_nmt(ZooOptions& options);

// Inception-V3 (inception_v3.cc): 299x299x3, batch 32.
Result<Graph> build_inception_v3(ZooOptions& options);

// ResNet-50 (resnet50.cc): 224x224x3, batch 32.
Result<Graph> build_resnet50(ZooOptions& options);

// Transformer (transformer.cc): base encoder-decoder, 6 + 6 layers, d_model 512.
Result<Graph> build_transformer(ZooOptions& options);

}  // namespace devplace
