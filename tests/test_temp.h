// File: test_temp.h
// Files a test writes go to one folder per test process, removed when the
// process exits, so that test runs leave nothing in the temporary folder.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace devplace::testing {

class ScratchDir {
 public:
  // The folder, made on first use: $TMPDIR/devplace_test_<pid>.
  static const std::filesystem::path& path() {
    static ScratchDir dir;
    return dir.path_;
  }

 private:
  ScratchDir()
      : owner_(::getpid()),
        path_(std::filesystem::temp_directory_path() / ("devplace_test_" + std::to_string(owner_))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    // A forked child (a death test) exiting must not remove its parent's files.
    if (::getpid() != owner_) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  pid_t owner_;
  std::filesystem::path path_;
};

// A path in this process's scratch folder.
inline std::filesystem::path temp_file(const std::string& name) { return ScratchDir::path() / name; }

}  // namespace devplace::testing
