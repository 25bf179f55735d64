// File: file_io.h
// Whole-file reads and writes with errors that name the path.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"

namespace devplace {

// "PATH: cannot read file" (kNotFound) when it cannot be opened or read.
Result<std::string> read_text_file(const std::string& path);
// Replaces the file's contents. "PATH: cannot open for writing" / "PATH: write failed".
Status write_text_file(const std::string& path, std::string_view text);

}  // namespace devplace
