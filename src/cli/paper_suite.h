// File: paper_suite.h
// The rows of the paper's Table 1 (Mirhoseini et al. 2017), as
// `devplace compare --suite paper` runs them: RNNLM, NMT and Inception-V3
// on 2 and 4 K80s.
#pragma once

namespace devplace::cli {

struct SuiteRow {
  const char* model;    // as the table labels it
  const char* graph;    // the --graph a row runs
  const char* cluster;  // its --cluster
};

inline constexpr SuiteRow kPaperSuite[] = {
    {"RNNLM", "zoo:rnnlm", "k80x2"},
    {"RNNLM", "zoo:rnnlm", "k80x4"},
    {"NMT", "zoo:nmt", "k80x2"},
    {"NMT", "zoo:nmt", "k80x4"},
    {"Inception-V3", "zoo:inception_v3", "k80x2"},
    {"Inception-V3", "zoo:inception_v3", "k80x4"},
};

}  // namespace devplace::cli
