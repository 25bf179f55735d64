// File: child_processes.cc
// Children of devplace, run side by side (see child_processes.h).
#include "cli/child_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>

#include "common/interrupt.h"

namespace devplace::cli {

namespace {

// A private folder for the children's output, removed with its files.
class TempFolder {
 public:
  static Result<TempFolder> create() {
    std::string pattern = (std::filesystem::temp_directory_path() / "devplace_jobs_XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr)
      return invalid_input("cannot create a temporary folder in " + std::filesystem::temp_directory_path().string() + " (" +
                           std::strerror(errno) + ")");
    TempFolder f;
    f.path_ = pattern;
    return f;
  }
  TempFolder() = default;
  TempFolder(TempFolder&& o) noexcept : path_(std::exchange(o.path_, "")) {}
  TempFolder& operator=(TempFolder&&) = delete;
  ~TempFolder() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string last_line(const std::string& text) {
  size_t end = text.find_last_not_of("\r\n");
  if (end == std::string::npos) return "";
  const size_t start = text.find_last_of('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1));
}

// Starts `exe ARGS` with stdout and stderr to the given files, in a
// process group of its own (the terminal's Ctrl-C reaches the parent only,
// which passes one SIGINT on), killed if the parent dies (a second Ctrl-C
// must not leave rows training for hours).
Result<pid_t> spawn(const std::string& exe, const ArgList& args, const std::string& out, const std::string& err) {
  std::vector<std::string> owned = {"devplace"};
  owned.insert(owned.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : owned) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) return invalid_input("cannot start " + exe + " (" + std::strerror(errno) + ")");
  if (pid == 0) {
    // The child: only async-signal-safe calls until exec.
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    const int in = ::open("/dev/null", O_RDONLY);
    const int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    const int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || o < 0 || e < 0 || ::dup2(in, 0) < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) ::_exit(127);
    ::execv(exe.c_str(), argv.data());
    ::_exit(127);
  }
  return pid;
}

}  // namespace

Result<std::vector<ChildResult>> run_devplace_children(const std::vector<ArgList>& commands, int jobs,
                                                       const std::function<void(size_t, const ChildResult&)>& on_done) {
  std::error_code ec;
  const std::string exe = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  if (ec) return invalid_input("cannot find the devplace executable to run its children (/proc/self/exe: " + ec.message() + ")");
  DEVPLACE_ASSIGN_OR_RETURN(const TempFolder folder, TempFolder::create());
  std::vector<ChildResult> results(commands.size());
  std::map<pid_t, size_t> running;
  size_t next = 0;
  bool forwarded = false;  // Ctrl-C passed on to the children running
  Status start_error = Status::ok_status();
  while (next < commands.size() || !running.empty()) {
    while (start_error.ok() && next < commands.size() && static_cast<int>(running.size()) < std::max(1, jobs) &&
           !interrupt_requested()) {
      const std::string id = std::to_string(next);
      Result<pid_t> pid = spawn(exe, commands[next], folder.file(id + ".out"), folder.file(id + ".err"));
      if (!pid.ok()) {
        start_error = pid.error();
        break;
      }
      running[pid.value()] = next++;
    }
    if (running.empty()) break;  // Ctrl-C or a failed start: nothing more to wait for
    // Polled, not blocking: SIGINT restarts a blocked wait, and Ctrl-C must
    // reach the children now, not when one of them ends.
    if (interrupt_requested() && !forwarded) {
      for (const auto& [child, index] : running) ::kill(child, SIGINT);
      forwarded = true;
    }
    int status = 0;
    const pid_t pid = ::waitpid(-1, &status, WNOHANG);
    if (pid < 0 && errno != EINTR) return invalid_input(std::string("waiting for the children failed (") + std::strerror(errno) + ")");
    if (pid <= 0) {
      ::usleep(50'000);
      continue;
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;
    const size_t i = it->second;
    running.erase(it);
    ChildResult& r = results[i];
    r.ran = true;
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r.out = read_all(folder.file(std::to_string(i) + ".out"));
    r.last_error = last_line(read_all(folder.file(std::to_string(i) + ".err")));
    if (on_done) on_done(i, r);
  }
  if (!start_error.ok()) return start_error.error();
  return results;
}

}  // namespace devplace::cli
