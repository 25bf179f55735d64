// File: file_io.cc
// Whole-file reads and writes.
#include "common/file_io.h"

#include <fstream>
#include <sstream>

namespace devplace {

Result<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot read file");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return not_found(path + ": cannot read file");
  return buf.str();
}

Status write_text_file(const std::string& path, std::string_view text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return invalid_input(path + ": cannot open for writing");
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.close();
  if (!out) return invalid_input(path + ": write failed");
  return Status::ok_status();
}

}  // namespace devplace
