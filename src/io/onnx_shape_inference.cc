// File: onnx_shape_inference.cc
// InferShapes in a forked child (see onnx_shape_inference.h). The child
// writes one status byte and a payload to a pipe and leaves with _exit, so
// nothing of the parent (stdio buffers, atexit handlers) runs twice:
//   'S' + a serialized GraphProto holding only value_info and output;
//   'E' + the message of the exception InferShapes threw.
#include "io/onnx_shape_inference.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

namespace devplace {

namespace {

// A model that takes longer than this to infer is treated as hung.
constexpr int kInferenceTimeoutMs = 120'000;

void write_all(int fd, const std::string& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

[[noreturn]] void run_child(onnx::ModelProto& model, bool data_propagation, int fd) {
  std::string reply;
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, data_propagation));
    onnx::GraphProto shapes;
    *shapes.mutable_value_info() = model.graph().value_info();
    *shapes.mutable_output() = model.graph().output();
    reply = "S" + shapes.SerializeAsString();
  } catch (const std::exception& e) {
    reply = std::string("E") + e.what();
  } catch (...) {
    reply = "Eunknown exception";
  }
  write_all(fd, reply);
  ::close(fd);
  ::_exit(0);
}

struct ChildOutcome {
  bool completed = false;  // the child sent a reply and exited 0
  std::string reply;
  std::string failure;     // why not, when !completed
};

ChildOutcome infer_in_child(onnx::ModelProto& model, bool data_propagation) {
  ChildOutcome out;
  int fds[2];
  if (::pipe(fds) != 0) {
    out.failure = std::string("cannot create a pipe: ") + std::strerror(errno);
    return out;
  }
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    out.failure = std::string("cannot fork: ") + std::strerror(errno);
    return out;
  }
  if (pid == 0) {
    ::close(fds[0]);
    run_child(model, data_propagation, fds[1]);
  }
  ::close(fds[1]);
  bool timed_out = false;
  char buf[65536];
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int r = ::poll(&p, 1, kInferenceTimeoutMs);
    if (r < 0 && errno == EINTR) continue;
    if (r == 0) {
      timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.reply.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (timed_out) {
    out.failure = "it ran past " + std::to_string(kInferenceTimeoutMs / 1000) + " s";
  } else if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    out.failure = std::string("libonnx crashed (SIG") + (name ? name : std::to_string(WTERMSIG(status)).c_str()) + ")";
  } else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || out.reply.empty()) {
    out.failure = "libonnx crashed (exit code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")";
  } else {
    out.completed = true;
  }
  return out;
}

}  // namespace

void infer_onnx_shapes(onnx::ModelProto& model, const std::string& source) {
  for (const bool data_propagation : {true, false}) {
    const ChildOutcome child = infer_in_child(model, data_propagation);
    if (!child.completed) {
      std::fprintf(stderr, "devplace: warning: %s: ONNX shape inference%s: %s\n", source.c_str(),
                   data_propagation ? " with data propagation" : "", child.failure.c_str());
      continue;
    }
    if (child.reply[0] == 'E') {
      // InferShapes stopped at a node it cannot type; what it found before is lost, as in-process.
      std::fprintf(stderr, "devplace: warning: %s: ONNX shape inference stopped: %s\n", source.c_str(),
                   child.reply.c_str() + 1);
      return;
    }
    onnx::GraphProto shapes;
    if (!shapes.ParseFromArray(child.reply.data() + 1, static_cast<int>(child.reply.size() - 1))) {
      std::fprintf(stderr, "devplace: warning: %s: ONNX shape inference sent back an unreadable result\n", source.c_str());
      return;
    }
    *model.mutable_graph()->mutable_value_info() = shapes.value_info();
    *model.mutable_graph()->mutable_output() = shapes.output();
    return;
  }
}

}  // namespace devplace
