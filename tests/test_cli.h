// File: test_cli.h
// Running the devplace binary from a test: its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_temp.h"

namespace devplace::testing {

struct CliRun {
  int exit_code;
  std::string out;
  std::string err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs devplace with `args` (shell words).
inline CliRun devplace(const std::string& args) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("devplace_cli_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string cmd = std::string("DEVPLACE_CLUSTERS='") + DEVPLACE_CLUSTERS_DIR + "' '" + DEVPLACE_BINARY + "' " + args +
                          " >'" + (dir / "out").string() + "' 2>'" + (dir / "err").string() + "'";
  const int status = std::system(cmd.c_str());
  CliRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
  fs::remove_all(dir);
  return r;
}


}  // namespace devplace::testing
