// File: pretrain_corpus.h
// The graphs and clusters `devplace pretrain` trains on, and the split by
// model family: a family is either trained on or held out, never both, so
// that a held-out score says how the policy does on a kind of model it has
// never seen.
//
// Built-in corpora:
// - train: the training families, each on k80x2, k80x4, v100x8 and hetero:
//   resnet (ResNet-50, batch 16 and 32; torchvision's ResNet-18 exported
//   to ONNX; PipeDream's ResNet-18 and ResNet-50 profiles), transformer
//   (2 and 4 layers, d_model 512 and 256; an encoder block exported to
//   ONNX), layered (four synthetic MatMul networks of different depth,
//   width, fan-in and size, one too large for one GPU), recurrent
//   (generated stacked Elman RNNs, 4 x 1024 over 20 steps and 3 x 2048
//   over 16), mobilenet (torchvision's MobileNet-V2 from ONNX), and
//   PipeDream's measured profiles of alexnet, vgg (VGG-16) and squeezenet;
// - held-out: the paper's families, never in train: rnnlm (2 layers;
//   4 layers of 1024; a 2-layer LSTM exported to ONNX), nmt (2 and 4
//   layers; PipeDream's GNMT profile), inception (Inception-V3), on
//   k80x2, k80x4 and hetero;
// - tiny: two small layered graphs (the tests' corpus, seconds).
// The ONNX files are forward graphs expanded into a training step; they
// and the PipeDream profiles are the tests' fixtures (tests/io/testdata),
// read from the source tree this binary was built from.
// Or a file: one problem per line, "GRAPH CLUSTER FAMILY [training]"
// (blank lines and lines starting with '#' are skipped; "training"
// expands a forward-only file into a training step, as --training does).
#pragma once

#include <string>
#include <vector>

#include "common/status.h"

namespace devplace::cli {

struct CorpusEntry {
  std::string graph;    // as --graph takes it; for the source tree's files, relative to it
  std::string cluster;  // as --cluster takes it
  std::string family;
  bool training = false;  // expand a forward-only file into a training step (--training)
  std::string path;       // what to load, when not `graph` (a source-tree file's full path)

  const std::string& source() const { return path.empty() ? graph : path; }
};

// A built-in corpus by name, or a corpus file; an error names the file and
// the line.
Result<std::vector<CorpusEntry>> corpus_entries(const std::string& spec);

// The built-in corpora's names.
std::vector<std::string> builtin_corpora();

}  // namespace devplace::cli
