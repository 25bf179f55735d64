// File: mpi_session.cc
#include "rl/mpi_session.h"

#include <mpi.h>

#include <cstdlib>

namespace devplace::rl {

namespace {

bool started() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

void finalize_at_exit() {
  if (started()) MPI_Finalize();
}

}  // namespace

bool mpi_start() {
  if (started()) return true;
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return false;
  std::atexit(finalize_at_exit);
  return true;
}

int mpi_rank() {
  if (!started()) return 0;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int mpi_size() {
  if (!started()) return 1;
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

}  // namespace devplace::rl
