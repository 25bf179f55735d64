// File: mapped_text.h
// MappedText: a text (or binary) file for parsers that read past the end in 64-byte
// blocks (simdjson). A regular file is mapped read-only from the page
// cache: no copy and no fresh memory, which on a virtual machine is most
// of the cost of reading a large graph (a 419 MB file: 0.5 s to copy, and
// every page of the copy is a page fault). Anything else (a pipe, a
// device) is read into memory. Either way at least kPadding readable bytes
// follow the text.
//
// The same checks and messages as read_text_file (file_io.h): "PATH: cannot
// read file", "PATH: not a text file (a NUL byte at offset N)" (in the
// first MiB, as there), "PATH: larger than the 2 GiB devplace reads".
// A mapped file that another program truncates while it is being read
// makes the reader fail hard (SIGBUS), as with any mapped file.
#pragma once

#include <string>
#include <string_view>

#include "common/file_io.h"
#include "common/status.h"

namespace devplace {

class MappedText {
 public:
  static constexpr size_t kPadding = 64;

  MappedText() = default;
  MappedText(MappedText&& other) noexcept;
  MappedText& operator=(MappedText&& other) noexcept;
  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;
  ~MappedText();

  // The file's bytes; text().data()[text().size() + kPadding - 1] is readable.
  std::string_view text() const { return {data_, size_}; }

 private:
  friend Result<MappedText> map_file(const std::string& path, int64_t max_bytes, bool text);
  const char* data_ = "";
  size_t size_ = 0;
  void* mapping_ = nullptr;  // munmap'd on destruction; null when read into `buffer_`
  size_t mapping_bytes_ = 0;
  std::string buffer_;
};

Result<MappedText> map_text_file(const std::string& path, int64_t max_bytes = kMaxTextFileBytes);
// The same for any bytes (a binary graph): no check for NUL bytes, and
// read_binary_file's messages for what cannot be mapped.
Result<MappedText> map_binary_file(const std::string& path, int64_t max_bytes);
// Either: `text` checks the first MiB for NUL bytes.
Result<MappedText> map_file(const std::string& path, int64_t max_bytes, bool text);

}  // namespace devplace
