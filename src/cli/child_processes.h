// File: child_processes.h
// Runs this devplace executable again on several argument lists, at most
// `jobs` at a time: how `compare --suite paper --jobs N` runs its rows side
// by side. Each child is a whole process, so it shares nothing (LibTorch's
// global random generator, the simulator's buffers) with the others, and
// its results are those it gets alone.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/status.h"

namespace devplace::cli {

struct ChildResult {
  bool ran = false;       // false: not started (Ctrl-C came first)
  int exit_code = -1;     // the child's; 128 + N when signal N ended it
  std::string out;        // its standard output
  std::string last_error; // the last line of its standard error
};

// Runs `devplace ARGS` for each entry of `commands`, in order, at most `jobs`
// at a time (jobs >= 1), stdin from /dev/null, stdout and stderr captured
// in a private temporary folder. Each child has a process group of its own
// and dies with its parent. After Ctrl-C (interrupt.h: inside a scope) no
// new child starts and those running get one SIGINT, so they finish as
// `devplace` does when interrupted. `on_done(i, r)` is called as each one
// ends. Fails only when a child cannot be started.
Result<std::vector<ChildResult>> run_devplace_children(const std::vector<ArgList>& commands, int jobs,
                                                       const std::function<void(size_t, const ChildResult&)>& on_done);

}  // namespace devplace::cli
