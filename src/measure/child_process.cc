// File: child_process.cc
#include "measure/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include "common/interrupt.h"

namespace devplace {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended";
}

}  // namespace

ChildProcess::~ChildProcess() { stop(0); }

Status ChildProcess::start(const std::string& command) {
  if (running()) stop(0);
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
    return internal_error(std::string("socketpair: ") + std::strerror(errno));
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return internal_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The child: its own process group, so that stop() kills what the shell started too.
    setpgid(0, 0);
    dup2(fds[1], STDIN_FILENO);
    dup2(fds[1], STDOUT_FILENO);
    signal(SIGPIPE, SIG_DFL);
    signal(SIGINT, SIG_IGN);  // Ctrl-C goes to devplace, which stops the child itself
    execl("/bin/sh", "sh", "-c", command.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, so a kill right after fork reaches the group
  close(fds[1]);
  pid_ = pid;
  fd_ = fds[0];
  buffer_.clear();
  return Status::ok_status();
}

Status ChildProcess::write_line(const std::string& line) {
  if (!running()) return internal_error("the measurer is not running");
  std::string data = line + "\n";
  size_t sent = 0;
  while (sent < data.size()) {
    const ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return internal_error(std::string("cannot write to the measurer: ") + std::strerror(errno));
    }
    sent += static_cast<size_t>(n);
  }
  return Status::ok_status();
}

ChildProcess::ReadResult ChildProcess::read_line(double timeout_s, size_t max_bytes, std::string& line,
                                                 const std::function<void(double waited_s)>& waiting) {
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    if (const size_t nl = buffer_.find('\n'); nl != std::string::npos) {
      if (nl > max_bytes) return ReadResult::kTooLong;
      line.assign(buffer_, 0, nl);
      buffer_.erase(0, nl + 1);
      return ReadResult::kLine;
    }
    if (buffer_.size() > max_bytes) return ReadResult::kTooLong;
    if (!running()) return ReadResult::kClosed;
    if (interrupt_requested()) return ReadResult::kInterrupted;
    const double waited_s = seconds_since(t0);
    const double left_s = timeout_s - waited_s;
    if (left_s <= 0) return ReadResult::kTimeout;
    // Waits in slices of at most a second, to see Ctrl-C and to call `waiting`.
    pollfd p{fd_, POLLIN, 0};
    const int ready = poll(&p, 1, static_cast<int>(std::min(left_s, 1.0) * 1000) + 1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return ReadResult::kClosed;
    }
    if (ready == 0) {  // the loop re-checks the clock
      if (waiting) waiting(seconds_since(t0));
      continue;
    }
    char chunk[65536];
    const ssize_t n = recv(fd_, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return ReadResult::kClosed;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

std::string ChildProcess::stop(double grace_s) {
  if (!running()) return "not running";
  if (fd_ >= 0) {
    close(fd_);
    fd_ = -1;
  }
  int status = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_ || (r < 0 && errno != EINTR)) {
      const bool reaped = r == pid_;
      kill(-pid_, SIGKILL);  // whatever the shell left behind
      pid_ = -1;
      return reaped ? describe_wait_status(status) : "ended";
    }
    if (seconds_since(t0) >= grace_s) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(-pid_, SIGKILL);
  kill(pid_, SIGKILL);
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  return describe_wait_status(status);
}

}  // namespace devplace
