// File: file_io.cc
// Bounded whole-file reads and atomic writes (see file_io.h).
#include "common/file_io.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace devplace {

namespace {

std::string size_text(int64_t bytes) {
  if (bytes >= (int64_t{1} << 30) && bytes % (int64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes >= (int64_t{1} << 20) && bytes % (int64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

Result<std::string> read_bounded(const std::string& path, int64_t max_bytes, bool text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return not_found(path + ": cannot read file");
  // A regular file's size is known up front; a device or pipe is read in
  // blocks up to the limit.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) return not_found(path + ": cannot read file (a folder)");
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > max_bytes)
    return invalid_input(path + ": larger than the " + size_text(max_bytes) + " devplace reads");
  std::string data;
  if (S_ISREG(st.st_mode)) data.reserve(static_cast<size_t>(st.st_size));
  constexpr size_t kBlock = size_t{1} << 20;
  std::string block(kBlock, '\0');
  bool first = true;
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(kBlock));
    const size_t got = static_cast<size_t>(in.gcount());
    if (got == 0) break;
    if (text && first) {
      if (const void* nul = std::memchr(block.data(), '\0', got))
        return invalid_input(path + ": not a text file (a NUL byte at offset " +
                             std::to_string(static_cast<const char*>(nul) - block.data()) + ")");
    }
    first = false;
    if (static_cast<int64_t>(data.size() + got) > max_bytes)
      return invalid_input(path + ": larger than the " + size_text(max_bytes) + " devplace reads");
    data.append(block.data(), got);
  }
  if (in.bad()) return not_found(path + ": cannot read file");
  return data;
}

}  // namespace

Result<std::string> read_text_file(const std::string& path, int64_t max_bytes) { return read_bounded(path, max_bytes, true); }

Result<std::string> read_binary_file(const std::string& path, int64_t max_bytes) { return read_bounded(path, max_bytes, false); }

std::string replacement_target(const std::string& path) {
  std::filesystem::path p(path);
  std::error_code ec;
  // A bounded walk: a loop of links ends where it stands, and the write
  // then fails with the system's reason.
  for (int hops = 0; hops < 40 && std::filesystem::is_symlink(p, ec); ++hops) {
    const std::filesystem::path target = std::filesystem::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  return p.string();
}

Status write_text_file(const std::string& given_path, std::string_view text) {
  const std::string path = replacement_target(given_path);
  std::error_code ec;
  if (std::filesystem::is_symlink(path, ec)) return invalid_input(given_path + ": too many levels of symbolic links");
  // Special files (/dev/stdout, a pipe) cannot be replaced: write through.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    std::ofstream out(path, std::ios::binary);
    if (!out) return invalid_input(path + ": cannot open for writing");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) return invalid_input(path + ": write failed");
    return Status::ok_status();
  }
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return invalid_input(path + ": cannot open for writing");
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return invalid_input(path + ": write failed");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    return invalid_input(path + ": write failed (" + why + ")");
  }
  return Status::ok_status();
}

Status check_output_path(const std::string& flag, const std::string& given_path) {
  const std::string prefix = flag.empty() ? "" : flag + ": ";
  if (given_path.empty()) return invalid_input(prefix + "expected a file name, got ''");
  std::error_code ec;
  // A link: the file it leads to is the one written.
  const std::string path = replacement_target(given_path);
  if (std::filesystem::is_symlink(path, ec)) return invalid_input(prefix + given_path + ": too many levels of symbolic links");
  const std::filesystem::path p(path);
  if (std::filesystem::is_directory(p, ec)) return invalid_input(prefix + path + ": is a folder, not a file");
  const std::filesystem::path parent = p.parent_path().empty() ? std::filesystem::path(".") : p.parent_path();
  if (!std::filesystem::is_directory(parent, ec))
    return invalid_input(prefix + path + ": the folder " + parent.string() + " does not exist");
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    return invalid_input(prefix + path + ": the folder " + parent.string() + " is not writable");
  if (std::filesystem::exists(p, ec) && ::access(path.c_str(), W_OK) != 0)
    return invalid_input(prefix + path + ": the file is not writable");
  return Status::ok_status();
}

}  // namespace devplace
