// File: rl_library.h
// The learned placers and MPI live in libdevplace_rl.so (rl/), the only code
// that links LibTorch and Open MPI. Loading those costs about a second per
// process, so devplace loads the library only when a learned placer runs or
// MPI starts; `devplace simulate` and the other placers never pay for it.
//
// The library is looked for beside libdevplace_learned.so, which holds
// this file (build/lib/ in the build tree, lib/ once installed), or at
// $DEVPLACE_RL_LIBRARY when set.
//
// This half of rl/ has no LibTorch: it adds the learned placers to the
// placer registry with their options (training_options.h), parses those
// options, and loads the library when a learned placer is asked to place.
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "place/placer.h"
#include "rl/pretrain_options.h"
#include "rl/training_options.h"

namespace devplace {

// What libdevplace_rl.so exports, as one table (extern "C" devplace_rl_api).
struct RlLibraryApi {
  int version;  // kRlLibraryApiVersion of the build that made the library
  // "rl", "hierarchical" or "pretrained" with its options; null if unknown.
  std::unique_ptr<Placer> (*make_placer)(std::string_view name, const rl::TrainingRunOptions& options);
  bool (*mpi_start)();
  int (*mpi_rank)();
  int (*mpi_size)();
  // `devplace pretrain` (rl/pretrain.h).
  Result<rl::PretrainSummary> (*pretrain)(const std::vector<rl::PretrainProblem>& corpus, const rl::PretrainOptions& options);
};
inline constexpr int kRlLibraryApiVersion = 4;  // 3: Placer::resumed; 4: pretrain
inline constexpr const char* kRlLibraryApiSymbol = "devplace_rl_api";

// Loads the library once; an error names the file and dlopen's reason.
Result<const RlLibraryApi*> rl_library();

// Adds rl, hierarchical and pretrained to the placer registry (once; later calls do
// nothing). Their entries make a placer that parses the training options
// in configure() and loads the library on its first place(), forwarding to
// the learned placer there. The CLI calls this at start-up; so do the tests
// and benchmarks that run a learned placer by name.
void register_learned_placers();

// MPI through the library: start_mpi() loads it and joins the MPI job
// (an error with the reason when it cannot); mpi_rank() is 0 and mpi_size() 1
// while MPI has not been started, without loading anything.
Status start_mpi();
int mpi_rank();
int mpi_size();

}  // namespace devplace
