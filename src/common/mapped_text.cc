// File: mapped_text.cc
// Mapping a text file with readable padding (see mapped_text.h).
#include "common/mapped_text.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

namespace devplace {

MappedText::MappedText(MappedText&& other) noexcept { *this = std::move(other); }

MappedText& MappedText::operator=(MappedText&& other) noexcept {
  if (this == &other) return *this;
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
  mapping_ = std::exchange(other.mapping_, nullptr);
  mapping_bytes_ = std::exchange(other.mapping_bytes_, 0);
  buffer_ = std::move(other.buffer_);
  size_ = std::exchange(other.size_, 0);
  // The padded buffer is longer than any small-string buffer, so a move keeps its bytes where they were; data_ is set anew all the same.
  data_ = mapping_ != nullptr ? static_cast<const char*>(mapping_) : buffer_.data();
  other.data_ = "";
  return *this;
}

MappedText::~MappedText() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_bytes_);
}

namespace {

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<MappedText> map_text_file(const std::string& path, int64_t max_bytes) { return map_file(path, max_bytes, true); }

Result<MappedText> map_binary_file(const std::string& path, int64_t max_bytes) { return map_file(path, max_bytes, false); }

Result<MappedText> map_file(const std::string& path, int64_t max_bytes, bool text) {
  MappedText out;
  struct stat st {};
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  const bool mappable = file.fd >= 0 && ::fstat(file.fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
                        st.st_size <= max_bytes;
  if (!mappable) {
    // Pipes, devices, folders, empty, missing and too large files: read_text_file checks and says.
    if (text) {
      DEVPLACE_ASSIGN_OR_RETURN(out.buffer_, read_text_file(path, max_bytes));
    } else {
      DEVPLACE_ASSIGN_OR_RETURN(out.buffer_, read_binary_file(path, max_bytes));
    }
    out.size_ = out.buffer_.size();
    out.buffer_.append(MappedText::kPadding, '\0');
    out.data_ = out.buffer_.data();
    return out;
  }
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t size = static_cast<size_t>(st.st_size);
  const size_t file_bytes = (size + page - 1) / page * page;
  const size_t total = (size + MappedText::kPadding + page - 1) / page * page;
  // A zero-filled region for the padding, then the file mapped over its start.
  void* region = ::mmap(nullptr, total, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (region == MAP_FAILED) return not_found(path + ": cannot read file (" + std::strerror(errno) + ")");
  out.mapping_ = region;
  out.mapping_bytes_ = total;
  if (::mmap(region, file_bytes, PROT_READ, MAP_PRIVATE | MAP_FIXED | MAP_POPULATE, file.fd, 0) == MAP_FAILED)
    return not_found(path + ": cannot read file (" + std::strerror(errno) + ")");
  out.data_ = static_cast<const char*>(region);
  out.size_ = size;
  constexpr size_t kFirstBlock = size_t{1} << 20;  // what read_text_file checks
  if (!text) return out;
  if (const void* nul = std::memchr(out.data_, '\0', std::min(size, kFirstBlock)))
    return invalid_input(path + ": not a text file (a NUL byte at offset " +
                         std::to_string(static_cast<const char*>(nul) - out.data_) + ")");
  return out;
}

}  // namespace devplace
