// File: pipedream_importer.h
// Reads the layer profiles of PipeDream (Narayanan et al., "PipeDream:
// Generalized Pipeline Parallelism for DNN Training", SOSP 2019; the
// `graph.txt` files its profiler writes, the msr-fiddle/pipedream repository)
// into a training-step Graph with measured GPU times.
//
// The format, one layer or one edge a line:
//
//   node4 -- Embedding(32320, 1024, padding_idx=0) -- forward_compute_time=0.073, backward_compute_time=6.949, activation_size=6291456.0, parameter_size=132382720.000
//   node7 -- LSTM(2048, 1024) -- forward_compute_time=3.190, ..., activation_size=[6291456.0; 131072.0; 131072.0], ...
//   <TAB>node1 -- node4
//
// A node line is "ID -- DESCRIPTION -- FIELDS", optionally followed by
// " -- stage_id=N" (PipeDream's partitioned graphs; read and ignored). Times
// are milliseconds measured per layer on one GPU, sizes are bytes
// (activation_size: the layer's output, a list for a layer with several
// outputs; parameter_size: its weights). Edge lines are indented (PipeDream
// writes a tab). We are more lenient than PipeDream's own reader in two
// ways: a description may contain " -- " (the fields are the last part), and
// a list may be separated by ',' as well as ';'.
//
// What the Graph gets (docs/formats.md, "PipeDream profile (graph.txt)"):
// - One forward op per node, named by the node id ("node4"), of the type the
//   description names before its '(' ("Embedding", "LSTM", "Input0"), with
//   measured_time_s[gpu] = forward ms / 1000 and measured_backward_time_s[gpu]
//   = backward ms / 1000; expand_training_step then adds backward and update
//   ops (its default optimizer, Adam). The full description is not kept in
//   the Graph (it holds no free text); parse_pipedream_profile returns it.
// - Data-loading nodes (type "Input", "Input0", "Input1", ...) run on the CPU
//   only, in zero time: PipeDream's forward time for them is the data
//   loader's, not a layer's.
// - One output tensor "ID:K" per activation_size entry. PipeDream's edges do
//   not say which output they read; we take a consumer of type __getitem__(K)
//   to read output K (that is how PyTorch unpacks the tuple an LSTM returns,
//   and the sizes in the profiles agree), and any other consumer to read all
//   of the outputs.
// - layer = the node's position in a topological order (ties broken by the
//   number in "nodeN", then by file order), so expert placements can cut the
//   model into contiguous blocks. Op ids follow the same order.
// - FLOPs are not in the profile. We estimate them so that CPU times (which
//   nothing measured) come out of the roofline model in proportion to the
//   measured GPU times: flops = measured GPU forward seconds x the FLOP/s the
//   profiling GPU achieves on such an op, taken as its FP32 peak times the
//   compute fraction our roofline assumes on a GPU for the op's class
//   (RooflineOptions: 0.65 for matmul/conv/recurrent-like ops, 0.25 for the
//   rest). The profiling GPU is an assumption: PipeDream's paper ran on
//   NVIDIA V100s (and Titan X), and the profiles do not say; we take a V100
//   SXM2, 15.7 TFLOP/s FP32. So a roofline for that GPU gives back the
//   measured forward time exactly (plus its launch overhead).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/graph.h"
#include "graph/training_step.h"

namespace devplace {

// One layer of a profile, as written.
struct PipeDreamNode {
  std::string id;           // "node4"
  std::string description;  // "Embedding(32320, 1024, padding_idx=0)"
  std::string layer_class;  // "Embedding": the description before its '(', trimmed
  double forward_ms = 0;
  double backward_ms = 0;
  std::vector<int64_t> activation_bytes;  // one entry per output, at least one
  int64_t parameter_bytes = 0;
  int32_t stage_id = -1;  // -1: none given
  int line = 0;           // 1-based line in the file
};

struct PipeDreamEdge {
  int32_t from = 0;  // index into PipeDreamProfile::nodes
  int32_t to = 0;
  int line = 0;
};

struct PipeDreamProfile {
  std::vector<PipeDreamNode> nodes;  // file order
  std::vector<PipeDreamEdge> edges;  // file order, a repeated edge only once
};

// Parses a profile's text. Errors are one line, prefixed with `source` and the
// line: "gnmt/graph.txt:12: node 'node7': forward_compute_time: expected a
// non-negative number, got 'abc'"; malformed lines, missing, unknown or
// repeated fields, duplicate nodes, edges naming unknown nodes, sizes above
// 2^50 bytes (also in total) or times above 1e9 ms, and a profile without
// nodes are errors. Never throws.
Result<PipeDreamProfile> parse_pipedream_profile(std::string_view text, const std::string& source);

struct PipeDreamImportOptions {
  std::string graph_name = "pipedream";
  // The GPU the profile was measured on (assumed V100 SXM2: FP32 peak and
  // HBM2 bandwidth). Recorded as the graph's measured_on GPU, so that other
  // GPUs get its times scaled by the roofline ratio.
  double profiling_gpu_peak_flops = 1.57e13;
  double profiling_gpu_memory_bandwidth_bytes_per_s = 9e11;
  std::string profiling_gpu_model = "NVIDIA V100 SXM2 (assumed: PipeDream's profiles do not say)";
  TrainingOptions training;
};

// The training-step Graph of a parsed profile (model in the file comment).
// The profile's edges must index its nodes (as parse_pipedream_profile's do).
// Fails, prefixed with `source`, on a cycle or on a profile without
// parameters (nothing to train).
Result<Graph> pipedream_profile_to_graph(const PipeDreamProfile& profile, const std::string& source,
                                         const PipeDreamImportOptions& options = {});

// Reads and converts the file at `path`, with the default options and the
// graph name pipedream_graph_name(path).
Result<Graph> read_pipedream_profile(const std::string& path);

// "gnmt" for ".../gnmt/graph.txt" (PipeDream's layout: one folder per model),
// else the file's stem ("tiny" for "tiny.txt").
std::string pipedream_graph_name(const std::string& path);

// Estimated FLOPs of one forward execution of a layer of type `layer_class`
// that took `gpu_seconds` on a GPU of `gpu_peak_flops` (see the file comment).
double pipedream_estimated_flops(std::string_view layer_class, double gpu_seconds, double gpu_peak_flops);

// For the importer registry: a file named graph.txt, or one whose first
// non-blank line looks like "nodeN -- ... -- forward_compute_time=".
bool detect_pipedream_profile(const std::string& path, std::string_view head);

}  // namespace devplace
