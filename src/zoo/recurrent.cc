// File: recurrent.cc
// zoo:recurrent, a generated stacked recurrent network (see builders.h):
// the grid of cells an unrolled multi-layer RNN makes, for pretraining on a
// recurrent structure without the LSTM models the paper evaluates.
#include <string>

#include "zoo/builders.h"
#include "zoo/model_builder.h"

namespace devplace {

Result<Graph> build_recurrent(ZooOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t layers, options.get_int("layers", 4, 1, 64));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t hidden, options.get_int("hidden", 1024, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t steps, options.get_int("steps", 20, 1, 10'000));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t batch, options.get_int("batch", 64, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t classes, options.get_int("classes", 1000, 2, 1 << 24));
  // Five forward ops per layer and step.
  DEVPLACE_RETURN_IF_ERROR(options.check_product("layers x steps", layers, steps, 100'000));

  ModelBuilder m("recurrent");
  std::vector<TensorId> weights, biases, state;
  for (int64_t l = 0; l < layers; ++l) {
    m.set_layer(static_cast<int32_t>(l));
    const std::string cell = "rnn" + std::to_string(l);
    weights.push_back(m.variable(cell + "/kernel", {2 * hidden, hidden}));
    biases.push_back(m.variable(cell + "/bias", {hidden}));
    state.push_back(m.zeros(cell + "/h0", {batch, hidden}));
  }
  m.set_layer(static_cast<int32_t>(layers - 1));
  const TensorId out_w = m.variable("readout/weights", {hidden, classes});
  std::vector<TensorId> losses;
  for (int64_t t = 0; t < steps; ++t) {
    const std::string ts = "t" + std::to_string(t);
    m.set_layer(0);
    TensorId x = m.input(ts + "/input", {batch, hidden});
    for (int64_t l = 0; l < layers; ++l) {
      m.set_layer(static_cast<int32_t>(l));
      const std::string cell = ts + "/rnn" + std::to_string(l);
      // h' = tanh([x, h] W + b): an Elman cell.
      const TensorId joined = m.concat(cell + "/concat", {x, state[l]}, 1);
      const TensorId z = m.bias_add(cell + "/BiasAdd", m.matmul(cell + "/MatMul", joined, weights[l]), biases[l]);
      state[l] = m.tanh(cell + "/Tanh", z);
      x = state[l];
    }
    m.set_layer(static_cast<int32_t>(layers - 1));
    const TensorId labels = m.input(ts + "/labels", {batch}, DType::kInt32);
    losses.push_back(m.softmax_cross_entropy(ts + "/loss", m.matmul(ts + "/readout", x, out_w), labels));
  }
  m.add_n("total_loss", losses);
  return std::move(m).build();
}

}  // namespace devplace
