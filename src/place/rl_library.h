// File: rl_library.h
// The learned placers and MPI live in libdevplace_rl.so (rl/), the only code
// that links LibTorch and Open MPI. Loading those costs about a second per
// process, so devplace loads the library only when a learned placer runs or
// MPI starts; `devplace simulate` and the other placers never pay for it.
//
// The library is looked for beside libdevplace_place.so (build/lib/ in the
// build tree, lib/ once installed), or at $DEVPLACE_RL_LIBRARY when set.
#pragma once

#include <memory>
#include <string_view>

#include "common/status.h"
#include "place/placer.h"

namespace devplace {

// What libdevplace_rl.so exports, as one table (extern "C" devplace_rl_api).
struct RlLibraryApi {
  int version;  // kRlLibraryApiVersion of the build that made the library
  std::unique_ptr<Placer> (*make_placer)(std::string_view name);  // "rl" or "hierarchical"; null if unknown
  bool (*mpi_start)();
  int (*mpi_rank)();
  int (*mpi_size)();
};
inline constexpr int kRlLibraryApiVersion = 1;
inline constexpr const char* kRlLibraryApiSymbol = "devplace_rl_api";

// Loads the library once; an error names the file and dlopen's reason.
Result<const RlLibraryApi*> rl_library();

// A placer that loads the library on its first place() and forwards to the
// learned placer `name` there (the registry's rl and hierarchical entries).
std::unique_ptr<Placer> make_rl_library_placer(std::string_view name);

// MPI through the library: start_mpi() loads it and joins the MPI job
// (an error with the reason when it cannot); mpi_rank() is 0 and mpi_size() 1
// while MPI has not been started, without loading anything.
Status start_mpi();
int mpi_rank();
int mpi_size();

}  // namespace devplace
