// File: child_process.h
// A long-lived child process that speaks lines over its stdin and stdout:
// `/bin/sh -c COMMAND` in its own process group, its stdin and stdout one
// end of a Unix stream socket (so a write to a dead child fails with EPIPE
// instead of raising SIGPIPE in devplace), its stderr devplace's.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>

#include "common/status.h"

namespace devplace {

class ChildProcess {
 public:
  ChildProcess() = default;
  ~ChildProcess();  // kills the process group and reaps the child
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts `command`. Fails only if the socket or fork fails; a command that
  // does not exist starts a shell that exits with status 127.
  Status start(const std::string& command);
  bool running() const { return pid_ > 0; }

  // Writes `line` and a newline. Fails if the child closed its end.
  Status write_line(const std::string& line);

  enum class ReadResult { kLine, kTimeout, kClosed, kTooLong, kInterrupted };
  // Reads one line (without its newline) into `line`, waiting at most
  // `timeout_s` seconds. kClosed: the child closed stdout (or exited);
  // kTooLong: more than `max_bytes` without a newline; kInterrupted: Ctrl-C
  // (interrupt_requested()) while waiting. `waiting`, if set, is called
  // about once a second while no line has come, with the seconds waited.
  ReadResult read_line(double timeout_s, size_t max_bytes, std::string& line,
                       const std::function<void(double waited_s)>& waiting = {});

  // Closes the socket, waits up to `grace_s` for the child to exit, then
  // kills its process group (SIGKILL) and reaps it. Returns a description
  // of how it ended ("exit status 3", "killed by signal 9").
  std::string stop(double grace_s);

 private:
  pid_t pid_ = -1;
  int fd_ = -1;
  std::string buffer_;  // bytes read past the last returned line
};

}  // namespace devplace
