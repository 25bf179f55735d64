// File: library_api.cc
// The table libdevplace_rl.so exports to rl/rl_library.cc, which loads
// this library only when a learned placer runs or MPI starts.
#include <memory>
#include <string_view>

#include "rl/rl_library.h"
#include "rl/hierarchical_placer.h"
#include "rl/mpi_session.h"
#include "rl/pretrain.h"
#include "rl/pretrained_placer.h"
#include "rl/rl_placer.h"

namespace {

std::unique_ptr<devplace::Placer> make_placer(std::string_view name, const devplace::rl::TrainingRunOptions& options) {
  if (name == "rl") return devplace::rl::make_rl_placer(options);
  if (name == "hierarchical") return devplace::rl::make_hierarchical_placer(options);
  if (name == "pretrained") return devplace::rl::make_pretrained_placer(options);
  return nullptr;
}

const devplace::RlLibraryApi kApi = {devplace::kRlLibraryApiVersion, &make_placer, &devplace::rl::mpi_start,
                                     &devplace::rl::mpi_rank, &devplace::rl::mpi_size, &devplace::rl::pretrain};

}  // namespace

extern "C" __attribute__((visibility("default"))) const devplace::RlLibraryApi* devplace_rl_api() { return &kApi; }
