// File: mpi_session.h
// The MPI job this process is part of, for code that must not see MPI's or
// torch's headers (the CLI: only rank 0 prints). MPI is started by the
// distributed trainer (distributed.h) on first use and finalized at exit.
#pragma once

namespace devplace::rl {

// Starts MPI once (MPI_Init_thread, MPI_Finalize at exit). Returns false,
// with no side effect, when it cannot.
bool mpi_start();
// This process's rank and the job's size: 0 and 1 when MPI is not started.
int mpi_rank();
int mpi_size();

}  // namespace devplace::rl
