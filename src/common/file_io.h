// File: file_io.h
// Whole-file reads and writes with errors that name the path.
//
// Reads are bounded: a file larger than its limit is an error before it is
// read whole, and a text reader stops at the first NUL byte of the first
// block (so `--cluster /dev/zero` is refused at once instead of filling
// memory). Writes are atomic: the text goes to a temporary file beside the
// target, which is renamed over it only once complete, so a failed write
// leaves the old file as it was.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/status.h"

namespace devplace {

// The largest text input devplace reads (graph, cluster and placement
// files, training logs): 2 GiB.
inline constexpr int64_t kMaxTextFileBytes = int64_t{2} << 30;

// A text file: "PATH: cannot read file" (kNotFound) when it cannot be
// opened or read; "PATH: not a text file (a NUL byte at offset N)" and
// "PATH: larger than the N GiB devplace reads" (kInvalidInput).
Result<std::string> read_text_file(const std::string& path, int64_t max_bytes = kMaxTextFileBytes);
// Any bytes, at most max_bytes of them.
Result<std::string> read_binary_file(const std::string& path, int64_t max_bytes);

// Replaces the file's contents atomically (a temporary file beside it,
// then rename). "PATH: cannot open for writing" / "PATH: write failed".
// A symbolic link is followed: its target is replaced and the link kept.
Status write_text_file(const std::string& path, std::string_view text);

// The file an atomic write to `path` replaces: `path`, or, when it is a
// symbolic link (to a link ...), the file the links lead to, which need not
// exist yet. The temporary file goes beside it.
std::string replacement_target(const std::string& path);

// Before any work: a file can be created or replaced at `path` (its folder
// exists and is writable, and it is not a folder). `flag` names the option
// in the error: "--out: no/such/dir/x.json: the folder no/such/dir does not
// exist".
Status check_output_path(const std::string& flag, const std::string& path);

}  // namespace devplace
