// File: native_binary.cc
// The native binary graph format (see native_binary.h; layout in
// docs/formats.md, "Binary graphs").
//
// Layout, all little-endian, no padding:
//   magic "DPGRAPH\0", u32 version (1), u32 flags (0)
//   str graph name
//   2 x measured_on (cpu, gpu): str model, f64 peak_flops, f64 memory_bandwidth_bytes_per_s
//   u32 ops, u32 tensors, u64 input references
//   ops, in id order: str name, str type, f64 flops, i64 parameter_bytes,
//     i64 optimizer_state_bytes, i64 memory_traffic_bytes (-1: derived),
//     2 x f64 measured_time_s, 2 x f64 measured_backward_time_s (-1: none),
//     u8 kernel mask, u8 phase, i32 layer, i32 forward_op (-1: none),
//     str colocation_group, str pinned_device, u32 inputs,
//     u32 outputs, then each output: str name, u8 dtype, i64 bytes, u32 rank, rank x i64 dims
//   input references, op by op: u32 tensor id
// where str is a u32 byte count and the bytes. Tensor ids are the graph's:
// outputs numbered in op order, then output order, which is the order a
// Graph keeps them in, so a reader that adds them in file order gets them.
#include "io/native_binary.h"

#include <bit>
#include <cstdint>
#include <cstring>

#include "common/file_io.h"
#include "common/format.h"
#include "common/mapped_text.h"
#include "graph/builder.h"

namespace devplace {

namespace {

constexpr uint32_t kVersion = 1;
// The smallest op record: every fixed field, empty strings, no tensors.
constexpr size_t kMinOpBytes = 4 * 4 + 8 * 4 + 8 * 4 + 1 + 1 + 4 + 4 + 4 + 4;
// The smallest output record.
constexpr size_t kMinOutputBytes = 4 + 1 + 8 + 4;

class Writer {
 public:
  template <typename T>
  void put(T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out_.append(bytes, sizeof(T));
  }
  void put_string(std::string_view s) {
    put(static_cast<uint32_t>(s.size()));
    out_.append(s);
  }
  std::string take() && { return std::move(out_); }

 private:
  std::string out_;
};

static_assert(std::endian::native == std::endian::little, "the binary graph format is little-endian, as this machine");

// Bytes past the end or a bad value: where, and what.
struct Malformed {
  size_t offset;
  std::string what;
};

// A cursor over the file's bytes. The place a read is for (op, output,
// field) is kept as cheap parts and written out only in an error.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  // The op (and output) the next reads belong to; `name` must outlive them.
  void at_op(int64_t op, const std::string* name) {
    op_ = op;
    op_name_ = name;
    output_ = -1;
  }
  void at_output(int64_t output) { output_ = output; }
  void at_top() { op_ = output_ = -1; }

  template <typename T>
  T get(const char* field) {
    need(sizeof(T), field);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string get_string(const char* field) {
    const uint32_t n = get<uint32_t>(field);
    need(n, field);
    std::string s(bytes_.substr(pos_, n));
    pos_ += n;
    return s;
  }
  // Fails unless `n` more bytes are there.
  void need(size_t n, const char* field) const {
    if (n > bytes_.size() - pos_)
      fail(pos_, field, "the file ends early (" + std::to_string(n) + " more bytes expected, " +
                            std::to_string(bytes_.size() - pos_) + " left)");
  }
  // The value just read (`size` bytes) is wrong.
  [[noreturn]] void bad(size_t size, const char* field, const std::string& what) const { fail(pos_ - size, field, what); }
  [[noreturn]] void fail(size_t offset, const char* field, const std::string& what) const {
    std::string place;
    if (op_ >= 0) {
      place = "ops[" + std::to_string(op_) + "]";
      if (op_name_ != nullptr) place += " ('" + *op_name_ + "')";
      if (output_ >= 0) place += ".outputs[" + std::to_string(output_) + "]";
      place += ".";
    }
    throw Malformed{offset, place + field + ": " + what};
  }
  size_t offset() const { return pos_; }
  size_t left() const { return bytes_.size() - pos_; }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  int64_t op_ = -1;
  int64_t output_ = -1;
  const std::string* op_name_ = nullptr;
};

}  // namespace

bool is_native_binary(std::string_view head) { return head.substr(0, kNativeBinaryMagic.size()) == kNativeBinaryMagic; }

std::string graph_to_binary(const Graph& graph) {
  Writer w;
  for (char c : kNativeBinaryMagic) w.put(c);
  w.put(kVersion);
  w.put(uint32_t{0});
  w.put_string(graph.name());
  for (int k = 0; k < kNumDeviceKinds; ++k) {
    const MeasuredOn& m = graph.measured_on(static_cast<DeviceKind>(k));
    w.put_string(m.model);
    w.put(m.peak_flops);
    w.put(m.memory_bandwidth_bytes_per_s);
  }
  w.put(static_cast<uint32_t>(graph.num_ops()));
  w.put(static_cast<uint32_t>(graph.num_tensors()));
  uint64_t references = 0;  // an op may read a tensor twice: not num_edges()
  for (const Op& op : graph.ops()) references += op.inputs.size();
  w.put(references);
  for (const Op& op : graph.ops()) {
    w.put_string(op.name);
    w.put_string(op.type);
    w.put(op.flops);
    w.put(op.parameter_bytes);
    w.put(op.optimizer_state_bytes);
    w.put(op.memory_traffic_bytes);
    for (double t : op.measured_time_s) w.put(t);
    for (double t : op.measured_backward_time_s) w.put(t);
    w.put(op.kernel_mask);
    w.put(static_cast<uint8_t>(op.phase));
    w.put(op.layer);
    w.put(op.forward_op);
    w.put_string(op.colocation_group);
    w.put_string(op.pinned_device);
    w.put(static_cast<uint32_t>(op.inputs.size()));
    w.put(static_cast<uint32_t>(op.outputs.size()));
    for (TensorId id : op.outputs) {
      const Tensor& t = graph.tensor(id);
      w.put_string(t.name);
      w.put(static_cast<uint8_t>(t.dtype));
      w.put(t.bytes);
      w.put(static_cast<uint32_t>(t.shape.size()));
      for (int64_t d : t.shape) w.put(d);
    }
  }
  for (const Op& op : graph.ops()) {
    for (TensorId id : op.inputs) w.put(static_cast<uint32_t>(id));
  }
  return std::move(w).take();
}

Status write_native_binary(const Graph& graph, const std::string& path) {
  return write_text_file(path, graph_to_binary(graph));
}

Result<Graph> graph_from_binary(std::string_view bytes, const std::string& source) {
  Reader r(bytes);
  try {
    r.need(kNativeBinaryMagic.size(), "magic");
    if (!is_native_binary(bytes)) r.fail(0, "magic", "not a devplace binary graph (it starts with DPGRAPH)");
    for (size_t i = 0; i < kNativeBinaryMagic.size(); ++i) r.get<char>("magic");
    if (const uint32_t version = r.get<uint32_t>("version"); version != kVersion)
      r.bad(4, "version", std::to_string(version) + " (this devplace reads version " + std::to_string(kVersion) + ")");
    if (const uint32_t flags = r.get<uint32_t>("flags"); flags != 0) r.bad(4, "flags", "expected 0, got " + std::to_string(flags));
    GraphBuilder b(r.get_string("name"));
    for (int k = 0; k < kNumDeviceKinds; ++k) {
      const char* field = k == 0 ? "measured_on.cpu" : "measured_on.gpu";
      MeasuredOn m;
      m.model = r.get_string(field);
      m.peak_flops = r.get<double>(field);
      m.memory_bandwidth_bytes_per_s = r.get<double>(field);
      if (!(m.peak_flops >= 0) || !(m.memory_bandwidth_bytes_per_s >= 0)) r.bad(16, field, "expected non-negative numbers");
      if (!is_valid_utf8(m.model)) r.fail(r.offset() - 16 - m.model.size(), field, "model: not valid UTF-8");
      if (!m.model.empty() || m.known()) b.set_measured_on(static_cast<DeviceKind>(k), std::move(m));
    }
    const size_t counts_at = r.offset();
    const uint32_t num_ops = r.get<uint32_t>("ops");
    const uint32_t num_tensors = r.get<uint32_t>("tensors");
    const uint64_t num_references = r.get<uint64_t>("inputs");
    // Counts a hostile file cannot make us reserve memory for: each record takes bytes.
    if (num_ops > r.left() / kMinOpBytes || num_tensors > r.left() / kMinOutputBytes ||
        num_references > r.left() / sizeof(uint32_t) || num_ops > static_cast<uint32_t>(INT32_MAX) ||
        num_tensors > static_cast<uint32_t>(INT32_MAX))
      r.fail(counts_at, "counts", std::to_string(num_ops) + " ops, " + std::to_string(num_tensors) + " tensors and " +
                                      std::to_string(num_references) + " inputs do not fit in the " +
                                      std::to_string(bytes.size()) + "-byte file");
    b.reserve(static_cast<int>(num_ops), static_cast<int>(num_tensors));
    std::vector<uint32_t> input_counts(num_ops);
    uint64_t references = 0;
    for (uint32_t i = 0; i < num_ops; ++i) {
      const OpId id = static_cast<OpId>(i);
      Op op;
      r.at_op(id, nullptr);
      op.name = r.get_string("name");
      r.at_op(id, &op.name);
      op.type = r.get_string("type");
      op.flops = r.get<double>("flops");
      op.parameter_bytes = r.get<int64_t>("parameter_bytes");
      op.optimizer_state_bytes = r.get<int64_t>("optimizer_state_bytes");
      op.memory_traffic_bytes = r.get<int64_t>("memory_traffic_bytes");
      if (op.memory_traffic_bytes < -1) r.bad(8, "memory_traffic_bytes", "expected -1 (derived) or a size");
      for (double& t : op.measured_time_s) t = r.get<double>("measured_time_s");
      for (double& t : op.measured_backward_time_s) t = r.get<double>("measured_backward_time_s");
      op.kernel_mask = r.get<uint8_t>("kernels");
      if ((op.kernel_mask & ~kAllKernels) != 0) r.bad(1, "kernels", "unknown device kinds in mask " + std::to_string(op.kernel_mask));
      const uint8_t phase = r.get<uint8_t>("phase");
      if (phase > static_cast<uint8_t>(OpPhase::kUpdate)) r.bad(1, "phase", "unknown phase code " + std::to_string(phase));
      op.phase = static_cast<OpPhase>(phase);
      op.layer = r.get<int32_t>("layer");
      if (op.layer < -1) r.bad(4, "layer", "expected -1 (none) or a layer number, got " + std::to_string(op.layer));
      op.forward_op = r.get<int32_t>("forward_op");
      if (op.forward_op < kNoId || op.forward_op >= static_cast<int32_t>(num_ops) || op.forward_op == id)
        r.bad(4, "forward_op", "no other op #" + std::to_string(op.forward_op));
      op.colocation_group = r.get_string("colocation_group");
      op.pinned_device = r.get_string("pinned_device");
      input_counts[i] = r.get<uint32_t>("inputs");
      references += input_counts[i];
      const uint32_t num_outputs = r.get<uint32_t>("outputs");
      if (num_outputs > r.left() / kMinOutputBytes) r.bad(4, "outputs", std::to_string(num_outputs) + " do not fit in the file");
      b.add_op(std::move(op));
      r.at_op(id, &b.op(id).name);
      for (uint32_t o = 0; o < num_outputs; ++o) {
        r.at_output(o);
        std::string name = r.get_string("name");
        const uint8_t dtype = r.get<uint8_t>("dtype");
        if (dtype > static_cast<uint8_t>(DType::kBool)) r.bad(1, "dtype", "unknown dtype code " + std::to_string(dtype));
        const int64_t tensor_bytes = r.get<int64_t>("bytes");
        if (tensor_bytes < 0) r.bad(8, "bytes", "expected a non-negative size, got " + std::to_string(tensor_bytes));
        const uint32_t rank = r.get<uint32_t>("shape");
        r.need(static_cast<size_t>(rank) * sizeof(int64_t), "shape");
        std::vector<int64_t> shape(rank);
        for (int64_t& d : shape) d = r.get<int64_t>("shape");
        if (b.num_tensors() >= static_cast<int>(num_tensors))
          r.fail(counts_at, "tensors", "the ops have more outputs than the " + std::to_string(num_tensors) + " the header counts");
        b.add_output(id, std::move(name), std::move(shape), static_cast<DType>(dtype), tensor_bytes);
      }
    }
    r.at_top();
    if (b.num_tensors() != static_cast<int>(num_tensors) || references != num_references)
      r.fail(counts_at, "counts", "the header counts " + std::to_string(num_tensors) + " tensors and " +
                                      std::to_string(num_references) + " inputs, the ops " + std::to_string(b.num_tensors()) +
                                      " and " + std::to_string(references));
    r.need(references * sizeof(uint32_t), "inputs");
    for (uint32_t i = 0; i < num_ops; ++i) {
      const OpId id = static_cast<OpId>(i);
      for (uint32_t k = 0; k < input_counts[i]; ++k) {
        const uint32_t t = r.get<uint32_t>("inputs");
        if (t >= num_tensors) {
          r.at_op(id, &b.op(id).name);
          r.bad(4, "inputs", "input " + std::to_string(k) + " names no tensor #" + std::to_string(t));
        }
        b.add_input(id, static_cast<TensorId>(t));
      }
    }
    r.at_top();
    if (r.left() != 0) r.fail(r.offset(), "end", std::to_string(r.left()) + " bytes after the graph");
    Result<Graph> g = std::move(b).build();
    if (!g.ok()) return g.error().with_prefix(source);
    return g;
  } catch (const Malformed& m) {
    return invalid_input(source + ": offset " + std::to_string(m.offset) + ": " + m.what);
  }
}

Result<Graph> read_native_binary(const std::string& path) {
  // Mapped from the page cache: no copy, no fresh pages (mapped_text.h).
  DEVPLACE_ASSIGN_OR_RETURN(const MappedText file, map_binary_file(path, kMaxTextFileBytes));
  return graph_from_binary(file.text(), path);
}

}  // namespace devplace
