// File: pipedream_importer.cc
// PipeDream profile (graph.txt) reader (format and model in pipedream_importer.h).
//
// Two passes: parse_pipedream_profile checks every line and resolves edges to
// node indices, so each user error names its line; pipedream_profile_to_graph
// then orders the layers, builds the forward Graph (which finds cycles) and
// expands it into a training step. Numbers go through std::from_chars and are
// range-checked before any conversion, so no input reaches undefined
// behaviour; nothing here throws on bad input.
#include "io/pipedream_importer.h"

#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <optional>
#include <queue>
#include <set>
#include <system_error>
#include <unordered_map>
#include <utility>

#include "common/check.h"
#include "common/file_io.h"
#include "cost/roofline_cost_model.h"
#include "graph/builder.h"
#include "graph/op_types.h"

namespace devplace {

namespace {

// Largest size, per value and summed over the profile: 1 PiB, far above any
// model, and low enough that the training expansion's and the simulator's
// sums of bytes (a few times the total) stay far from int64 overflow.
constexpr double kMaxBytes = 1125899906842624.0;  // 2^50
constexpr const char* kMaxBytesText = "2^50";
// Largest time in milliseconds (about 11.6 days for one layer).
constexpr double kMaxMilliseconds = 1e9;

constexpr const char* kNodeLineShape =
    "expected 'ID -- DESCRIPTION -- forward_compute_time=..., backward_compute_time=..., "
    "activation_size=..., parameter_size=...' (edge lines are indented)";

enum Field { kForward = 0, kBackward, kActivation, kParameter, kNumFields };
constexpr std::string_view kFieldNames[kNumFields] = {"forward_compute_time", "backward_compute_time",
                                                      "activation_size", "parameter_size"};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool has_space(std::string_view s) {
  for (char c : s) {
    if (is_space(c)) return true;
  }
  return false;
}

// Text quoted for a one-line message: control bytes as \xNN, long text cut.
std::string quote_text(std::string_view s) {
  constexpr size_t kMaxShown = 60;
  std::string out = "'";
  const size_t shown = std::min(s.size(), kMaxShown);
  for (size_t i = 0; i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (shown < s.size()) out += "...";
  return out + "'";
}

std::vector<std::string_view> split(std::string_view s, std::string_view sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t at = s.find(sep, start);
    if (at == std::string_view::npos) {
      parts.push_back(s.substr(start));
      return parts;
    }
    parts.push_back(s.substr(start, at - start));
    start = at + sep.size();
  }
}

// A finite number written in full (no trailing text), or nothing.
std::optional<double> parse_number(std::string_view s) {
  double value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (ec != std::errc() || ptr != end || !std::isfinite(value)) return std::nullopt;
  return value + 0.0;  // -0 -> +0
}

std::optional<int64_t> parse_integer(std::string_view s) {
  int64_t value = 0;
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(s.data(), end, value);
  if (s.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// Reports errors of one line: "SOURCE:LINE: [node 'ID': ]message".
class LineErrors {
 public:
  LineErrors(const std::string& source, int line) : prefix_(source + ":" + std::to_string(line) + ": ") {}
  void set_node(std::string_view id) { node_ = "node " + quote_text(id) + ": "; }
  Error operator()(const std::string& message) const { return invalid_input(prefix_ + node_ + message); }

 private:
  std::string prefix_;
  std::string node_;
};

Result<double> parse_milliseconds(std::string_view key, std::string_view value, const LineErrors& fail) {
  const std::optional<double> v = parse_number(value);
  if (!v || *v < 0) return fail(std::string(key) + ": expected a non-negative number, got " + quote_text(value));
  if (*v > kMaxMilliseconds) return fail(std::string(key) + ": expected at most 1e9 ms, got " + quote_text(value));
  return *v;
}

Result<int64_t> parse_bytes(const std::string& key, std::string_view value, const LineErrors& fail) {
  const std::optional<double> v = parse_number(value);
  if (!v || *v < 0) return fail(key + ": expected a non-negative number, got " + quote_text(value));
  if (*v > kMaxBytes) return fail(key + ": expected at most " + kMaxBytesText + " bytes, got " + quote_text(value));
  return static_cast<int64_t>(std::llround(*v));  // in range: checked above
}

// "6291456.0" or "[6291456.0; 131072.0]" ("," also separates).
Result<std::vector<int64_t>> parse_activation(std::string_view value, const LineErrors& fail) {
  const std::string key(kFieldNames[kActivation]);
  std::vector<int64_t> sizes;
  if (value.empty() || value.front() != '[') {
    DEVPLACE_ASSIGN_OR_RETURN(int64_t bytes, parse_bytes(key, value, fail));
    sizes.push_back(bytes);
    return sizes;
  }
  if (value.size() < 2 || value.back() != ']')
    return fail(key + ": expected a number or a list [A; B; ...], got " + quote_text(value));
  const std::string_view inner = trim(value.substr(1, value.size() - 2));
  if (inner.empty()) return fail(key + ": expected at least one size, got " + quote_text(value));
  size_t start = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    if (i < inner.size() && inner[i] != ';' && inner[i] != ',') continue;
    const std::string element_key = key + "[" + std::to_string(sizes.size()) + "]";
    DEVPLACE_ASSIGN_OR_RETURN(int64_t bytes, parse_bytes(element_key, trim(inner.substr(start, i - start)), fail));
    sizes.push_back(bytes);
    start = i + 1;
  }
  return sizes;
}

// "forward_compute_time=0.073, backward_compute_time=6.949, activation_size=..., parameter_size=..."
Status parse_fields(std::string_view text, PipeDreamNode& node, const LineErrors& fail) {
  // Items are separated by commas outside brackets.
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size()) {
      if (text[i] == '[') ++depth;
      if (text[i] == ']' && depth > 0) --depth;
      if (text[i] != ',' || depth > 0) continue;
    }
    items.push_back(trim(text.substr(start, i - start)));
    start = i + 1;
  }
  bool seen[kNumFields] = {};
  for (std::string_view item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) return fail("expected 'KEY=VALUE', got " + quote_text(item));
    const std::string_view key = trim(item.substr(0, eq));
    const std::string_view value = trim(item.substr(eq + 1));
    int field = kNumFields;
    for (int f = 0; f < kNumFields; ++f) {
      if (key == kFieldNames[f]) field = f;
    }
    if (field == kNumFields) {
      return fail("unknown field " + quote_text(key) +
                  " (known: forward_compute_time, backward_compute_time, activation_size, parameter_size)");
    }
    if (seen[field]) return fail(std::string(key) + ": given twice");
    seen[field] = true;
    switch (field) {
      case kForward: {
        DEVPLACE_ASSIGN_OR_RETURN(node.forward_ms, parse_milliseconds(key, value, fail));
        break;
      }
      case kBackward: {
        DEVPLACE_ASSIGN_OR_RETURN(node.backward_ms, parse_milliseconds(key, value, fail));
        break;
      }
      case kActivation: {
        DEVPLACE_ASSIGN_OR_RETURN(node.activation_bytes, parse_activation(value, fail));
        break;
      }
      default: {
        DEVPLACE_ASSIGN_OR_RETURN(node.parameter_bytes, parse_bytes(std::string(key), value, fail));
        break;
      }
    }
  }
  for (int f = 0; f < kNumFields; ++f) {
    if (!seen[f]) return fail("missing field '" + std::string(kFieldNames[f]) + "'");
  }
  return Status::ok_status();
}

Status parse_node_line(std::string_view line, PipeDreamNode& node, LineErrors& fail) {
  std::vector<std::string_view> parts = split(line, " -- ");
  size_t fields = parts.size() - 1;  // index of the fields part
  if (parts.size() >= 4 && trim(parts.back()).substr(0, 9) == "stage_id=") {
    const std::string_view value = trim(parts.back()).substr(9);
    const std::optional<int64_t> stage = parse_integer(value);
    node.id = std::string(trim(parts[0]));
    fail.set_node(node.id);
    if (!stage || *stage < 0 || *stage > INT32_MAX)
      return fail("stage_id: expected a non-negative integer, got " + quote_text(value));
    node.stage_id = static_cast<int32_t>(*stage);
    --fields;
  }
  if (parts.size() < 3 || fields < 2) return fail(std::string(kNodeLineShape) + ", got " + quote_text(line));
  const std::string_view id = trim(parts[0]);
  if (id.empty() || has_space(id)) return fail("node id: expected a name without spaces, got " + quote_text(id));
  node.id = std::string(id);
  fail.set_node(node.id);
  // The description is everything between the id and the fields, " -- " included.
  const char* desc_begin = parts[1].data();
  const char* desc_end = parts[fields - 1].data() + parts[fields - 1].size();
  const std::string_view description = trim(std::string_view(desc_begin, static_cast<size_t>(desc_end - desc_begin)));
  node.description = std::string(description);
  node.layer_class = std::string(trim(description.substr(0, description.find('('))));
  if (node.layer_class.empty())
    return fail("expected a layer description such as 'Conv2d(...)', got " + quote_text(description));
  return parse_fields(trim(parts[fields]), node, fail);
}

struct PendingEdge {
  std::string from;
  std::string to;
  int line;
};

bool is_input_class(std::string_view layer_class) {
  if (layer_class.substr(0, 5) != "Input") return false;
  for (char c : layer_class.substr(5)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The number of "nodeN" (PipeDream's ids are numbered as layers are met), for ordering.
int64_t node_number(std::string_view id) {
  if (id.substr(0, 4) != "node") return INT64_MAX;
  std::optional<int64_t> n = parse_integer(id.substr(4));
  return n && *n >= 0 ? *n : INT64_MAX;
}

// Positions of the nodes in a topological order, ties broken by node number,
// then by file order. Nodes on a cycle come last, in file order (the
// GraphBuilder then reports the cycle).
std::vector<int32_t> layer_order(const PipeDreamProfile& profile) {
  const int32_t n = static_cast<int32_t>(profile.nodes.size());
  std::vector<std::vector<int32_t>> successors(n);
  std::vector<int32_t> in_degree(n, 0);
  for (const PipeDreamEdge& e : profile.edges) {
    DEVPLACE_CHECK(e.from >= 0 && e.from < n && e.to >= 0 && e.to < n);  // parse_pipedream_profile's edges
    successors[e.from].push_back(e.to);
    ++in_degree[e.to];
  }
  using Key = std::pair<int64_t, int32_t>;
  std::priority_queue<Key, std::vector<Key>, std::greater<Key>> ready;
  for (int32_t i = 0; i < n; ++i) {
    if (in_degree[i] == 0) ready.emplace(node_number(profile.nodes[i].id), i);
  }
  std::vector<int32_t> order;
  order.reserve(n);
  std::vector<char> placed(n, 0);
  while (!ready.empty()) {
    const int32_t i = ready.top().second;
    ready.pop();
    order.push_back(i);
    placed[i] = 1;
    for (int32_t s : successors[i]) {
      if (--in_degree[s] == 0) ready.emplace(node_number(profile.nodes[s].id), s);
    }
  }
  for (int32_t i = 0; i < n; ++i) {
    if (!placed[i]) order.push_back(i);
  }
  return order;
}

// Which outputs of `producer` an edge to `consumer` carries: output K for a
// consumer "__getitem__(K)" of a multi-output layer, else all of them.
std::vector<int32_t> outputs_read(const PipeDreamNode& producer, const PipeDreamNode& consumer) {
  const int32_t num = static_cast<int32_t>(producer.activation_bytes.size());
  if (num > 1 && consumer.layer_class == "__getitem__") {
    std::string_view args = trim(std::string_view(consumer.description).substr(consumer.layer_class.size()));
    if (args.size() >= 2 && args.front() == '(' && args.back() == ')') {
      const std::optional<int64_t> k = parse_integer(trim(args.substr(1, args.size() - 2)));
      if (k && *k >= 0 && *k < num) return {static_cast<int32_t>(*k)};
    }
  }
  std::vector<int32_t> all(num);
  for (int32_t k = 0; k < num; ++k) all[k] = k;
  return all;
}

}  // namespace

Result<PipeDreamProfile> parse_pipedream_profile(std::string_view text, const std::string& source) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);  // UTF-8 byte order mark
  PipeDreamProfile profile;
  std::unordered_map<std::string, int32_t> index_of;
  std::vector<PendingEdge> pending;
  double total_bytes = 0;
  int line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trim(line).empty()) continue;
    LineErrors fail(source, line_no);

    if (is_space(line.front())) {  // an edge: "\tnode1 -- node4"
      const std::string_view edge = trim(line);
      std::vector<std::string_view> ends = split(edge, " -- ");
      if (ends.size() != 2 || trim(ends[0]).empty() || trim(ends[1]).empty() || has_space(trim(ends[0])) ||
          has_space(trim(ends[1])))
        return fail("expected an edge 'FROM -- TO', got " + quote_text(edge));
      pending.push_back({std::string(trim(ends[0])), std::string(trim(ends[1])), line_no});
      continue;
    }

    PipeDreamNode node;
    node.line = line_no;
    DEVPLACE_RETURN_IF_ERROR(parse_node_line(trim(line), node, fail));
    auto [it, inserted] = index_of.emplace(node.id, static_cast<int32_t>(profile.nodes.size()));
    if (!inserted) return fail("duplicate node (first on line " + std::to_string(profile.nodes[it->second].line) + ")");
    total_bytes += static_cast<double>(node.parameter_bytes);
    for (int64_t b : node.activation_bytes) total_bytes += static_cast<double>(b);
    if (total_bytes > kMaxBytes)
      return fail(std::string("sizes in this profile add up to more than ") + kMaxBytesText + " bytes");
    profile.nodes.push_back(std::move(node));
  }
  if (profile.nodes.empty()) return invalid_input(source + ": empty PipeDream profile: no nodes");

  std::set<std::pair<int32_t, int32_t>> seen;
  for (const PendingEdge& e : pending) {
    auto from = index_of.find(e.from);
    auto to = index_of.find(e.to);
    if (from == index_of.end() || to == index_of.end()) {
      const std::string& unknown = from == index_of.end() ? e.from : e.to;
      return LineErrors(source, e.line)("edge " + quote_text(e.from + " -- " + e.to) + ": unknown node " + quote_text(unknown));
    }
    if (seen.emplace(from->second, to->second).second) profile.edges.push_back({from->second, to->second, e.line});
  }
  return profile;
}

double pipedream_estimated_flops(std::string_view layer_class, double gpu_seconds, double gpu_peak_flops) {
  // The roofline's own assumption of what a GPU achieves on this class of op,
  // so that the roofline for the profiling GPU reproduces the measured time.
  const RooflineOptions roofline;
  const double fraction =
      is_contraction_op_type(layer_class) ? roofline.gpu_contraction_compute_fraction : roofline.other_compute_fraction;
  return gpu_seconds * gpu_peak_flops * fraction;
}

Result<Graph> pipedream_profile_to_graph(const PipeDreamProfile& profile, const std::string& source,
                                         const PipeDreamImportOptions& options) {
  const std::vector<int32_t> order = layer_order(profile);
  const int32_t n = static_cast<int32_t>(profile.nodes.size());
  GraphBuilder b(options.graph_name);
  b.set_measured_on(DeviceKind::kGpu, MeasuredOn{options.profiling_gpu_model, options.profiling_gpu_peak_flops,
                                                 options.profiling_gpu_memory_bandwidth_bytes_per_s});
  std::vector<OpId> op_of(n, kNoId);
  std::vector<std::vector<TensorId>> outputs_of(n);
  for (int32_t position = 0; position < n; ++position) {
    const PipeDreamNode& node = profile.nodes[order[position]];
    const OpId id = b.add_op(node.id, node.layer_class);
    op_of[order[position]] = id;
    Op& op = b.mutable_op(id);
    op.layer = position;
    op.parameter_bytes = node.parameter_bytes;
    if (is_input_class(node.layer_class)) {
      // Data loading: on the host, and its profiled time is the loader's.
      op.kernel_mask = static_cast<uint8_t>(1u << static_cast<int>(DeviceKind::kCpu));
      op.measured_time_s[static_cast<int>(DeviceKind::kCpu)] = 0.0;
      op.memory_traffic_bytes = 0;
    } else {
      const double forward_s = node.forward_ms / 1000.0;
      op.measured_time_s[static_cast<int>(DeviceKind::kGpu)] = forward_s;
      op.measured_backward_time_s[static_cast<int>(DeviceKind::kGpu)] = node.backward_ms / 1000.0;
      op.flops = pipedream_estimated_flops(node.layer_class, forward_s, options.profiling_gpu_peak_flops);
    }
    for (size_t k = 0; k < node.activation_bytes.size(); ++k) {
      outputs_of[order[position]].push_back(
          b.add_output(id, node.id + ":" + std::to_string(k), {}, DType::kFloat32, node.activation_bytes[k]));
    }
  }
  for (const PipeDreamEdge& e : profile.edges) {
    for (int32_t k : outputs_read(profile.nodes[e.from], profile.nodes[e.to])) b.add_input(op_of[e.to], outputs_of[e.from][k]);
  }
  Result<Graph> forward = std::move(b).build();
  if (!forward.ok()) return forward.error().with_prefix(source);
  Result<Graph> step = expand_training_step(forward.value(), options.training);
  if (!step.ok()) return step.error().with_prefix(source);
  return step;
}

std::string pipedream_graph_name(const std::string& path) {
  const std::filesystem::path p(path);
  if (p.filename() == "graph.txt") {
    std::error_code ec;
    std::filesystem::path folder = std::filesystem::absolute(p, ec);
    folder = (ec ? p : folder).lexically_normal().parent_path().filename();
    const std::string name = folder.string();
    if (!name.empty() && name != "." && name != "..") return name;
  }
  const std::string stem = p.stem().string();
  return stem.empty() ? "pipedream" : stem;
}

Result<Graph> read_pipedream_profile(const std::string& path) {
  DEVPLACE_ASSIGN_OR_RETURN(std::string text, read_text_file(path));
  DEVPLACE_ASSIGN_OR_RETURN(PipeDreamProfile profile, parse_pipedream_profile(text, path));
  PipeDreamImportOptions options;
  options.graph_name = pipedream_graph_name(path);
  return pipedream_profile_to_graph(profile, path, options);
}

bool detect_pipedream_profile(const std::string& path, std::string_view head) {
  if (std::filesystem::path(path).filename() == "graph.txt") return true;
  // The first non-blank line: "nodeN -- ... -- forward_compute_time=".
  size_t start = 0;
  while (start < head.size() && (is_space(head[start]) || head[start] == '\n')) ++start;
  std::string_view line = head.substr(start);
  line = line.substr(0, line.find('\n'));
  if (line.substr(0, 4) != "node") return false;
  size_t i = 4;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i;
  if (i == 4 || line.substr(i, 4) != " -- ") return false;
  return line.find(" -- forward_compute_time=", i) != std::string_view::npos;
}

}  // namespace devplace
