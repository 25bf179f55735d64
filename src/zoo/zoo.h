// File: zoo.h
// The built-in models, addressed as "zoo:NAME[:key=value,...]" wherever a
// graph source is expected. Each builder makes a forward graph with the
// builder API; unless the spec says training=0 it is then expanded into a
// training step (graph/training_step.h), with optimizer=sgd|momentum|adam
// and aggregation=accumulate|addn (how shared tensors sum their gradients).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "graph/graph.h"

namespace devplace {

// The key=value options of a zoo spec. Builders read them with the getters;
// an option no one read is reported as unknown.
class ZooOptions {
 public:
  // Parses "k=v,k=v" (may be empty). `model` names the model in errors.
  static Result<ZooOptions> parse(std::string_view text, std::string model);

  // Integer option in [min_value, max_value], or `fallback` if absent.
  Result<int64_t> get_int(const std::string& key, int64_t fallback, int64_t min_value, int64_t max_value);
  Result<std::string> get_string(const std::string& key, std::string fallback);
  // Fails naming the first option no getter asked for.
  Status check_all_used() const;
  // Options accepted one by one can still multiply into a graph too large
  // to build: an error when `a` x `b` (named by `what`, e.g. "layers x
  // width") exceeds `max`.
  Status check_product(const std::string& what, int64_t a, int64_t b, int64_t max) const;

 private:
  std::string model_;
  std::map<std::string, std::string> values_;
  std::set<std::string> used_;
};

struct ZooModel {
  std::string_view name;
  std::string_view summary;
  // Builds the forward graph.
  Result<Graph> (*build)(ZooOptions& options);
};

const std::vector<ZooModel>& zoo_registry();

// Builds "NAME[:options]" (the part after "zoo:").
Result<Graph> build_zoo_model(std::string_view spec);

}  // namespace devplace
