// File: zoo.cc
// The zoo's registry and spec parsing. One line per model.
#include "zoo/zoo.h"

#include <charconv>

#include "graph/training_step.h"
#include "zoo/builders.h"

namespace devplace {

const std::vector<ZooModel>& zoo_registry() {
  static const std::vector<ZooModel> registry = {
      {"rnnlm", "2-layer LSTM language model, hidden 2048, 40 steps, batch 64 (ICML 2017)", &build_rnnlm},
      {"nmt", "LSTM encoder-decoder with attention, hidden 1024, 40+40 steps, batch 64, layers=2|4|8", &build_nmt},
      {"inception_v3", "Inception-V3, 299x299x3, batch 32 (ICML 2017)", &build_inception_v3},
      {"resnet50", "ResNet-50, 224x224x3, batch 32", &build_resnet50},
      {"transformer", "Transformer base, 6+6 layers, d_model 512, batch 32 x 128 tokens", &build_transformer},
      {"layered", "synthetic layered MatMul network (layers, width, fanin, batch, hidden)", &build_layered},
      {"recurrent", "generated stacked Elman RNN unrolled in time (layers, hidden, steps, batch, classes)", &build_recurrent},
  };
  return registry;
}

Result<ZooOptions> ZooOptions::parse(std::string_view text, std::string model) {
  ZooOptions o;
  o.model_ = std::move(model);
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find(',', pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(pos, end - pos);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos || eq == 0)
      return invalid_input("zoo:" + o.model_ + ": option '" + std::string(item) + "': expected key=value");
    o.values_[std::string(item.substr(0, eq))] = std::string(item.substr(eq + 1));
    pos = end + 1;
  }
  return o;
}

Result<int64_t> ZooOptions::get_int(const std::string& key, int64_t fallback, int64_t min_value, int64_t max_value) {
  used_.insert(key);
  auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  int64_t v = 0;
  const std::string& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || v < min_value || v > max_value)
    return invalid_input("zoo:" + model_ + ": option " + key + "=" + s + ": expected an integer in [" +
                         std::to_string(min_value) + ", " + std::to_string(max_value) + "]");
  return v;
}

Result<std::string> ZooOptions::get_string(const std::string& key, std::string fallback) {
  used_.insert(key);
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

Status ZooOptions::check_all_used() const {
  for (const auto& [key, value] : values_) {
    if (!used_.count(key)) return invalid_input("zoo:" + model_ + ": unknown option '" + key + "'");
  }
  return Status::ok_status();
}

Status ZooOptions::check_product(const std::string& what, int64_t a, int64_t b, int64_t max) const {
  int64_t product = 0;
  if (!__builtin_mul_overflow(a, b, &product) && product <= max) return Status::ok_status();
  return invalid_input("zoo:" + model_ + ": " + what + " = " + std::to_string(a) + " x " + std::to_string(b) +
                       " is more than the " + std::to_string(max) + " this model builds (the graph would not fit in memory)");
}

Result<Graph> build_zoo_model(std::string_view spec) {
  const size_t colon = spec.find(':');
  const std::string name(spec.substr(0, colon));
  const std::string_view option_text = colon == std::string_view::npos ? std::string_view{} : spec.substr(colon + 1);
  const ZooModel* model = nullptr;
  std::string known;
  for (const ZooModel& m : zoo_registry()) {
    if (m.name == name) model = &m;
    known += (known.empty() ? "" : ", ") + std::string(m.name);
  }
  if (model == nullptr) return not_found("unknown zoo model '" + name + "' (known: " + known + ")");
  DEVPLACE_ASSIGN_OR_RETURN(ZooOptions options, ZooOptions::parse(option_text, name));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t training, options.get_int("training", 1, 0, 1));
  DEVPLACE_ASSIGN_OR_RETURN(const std::string optimizer_text, options.get_string("optimizer", "adam"));
  std::optional<Optimizer> optimizer = parse_optimizer(optimizer_text);
  if (!optimizer) return invalid_input("zoo:" + name + ": option optimizer=" + optimizer_text + ": expected sgd, momentum or adam");
  DEVPLACE_ASSIGN_OR_RETURN(const std::string aggregation_text, options.get_string("aggregation", "accumulate"));
  if (aggregation_text != "accumulate" && aggregation_text != "addn")
    return invalid_input("zoo:" + name + ": option aggregation=" + aggregation_text + ": expected accumulate or addn");
  DEVPLACE_ASSIGN_OR_RETURN(Graph forward, model->build(options));
  DEVPLACE_RETURN_IF_ERROR(options.check_all_used());
  if (training == 0) return forward;
  TrainingOptions t;
  t.optimizer = *optimizer;
  t.aggregation = aggregation_text == "addn" ? GradientAggregation::kAddN : GradientAggregation::kAccumulate;
  return expand_training_step(forward, t);
}

}  // namespace devplace
