// File: rnnlm.cc
// zoo:rnnlm, the ICML 2017 paper's RNN language model: a 2-layer LSTM,
// hidden size 2048, unrolled over 40 steps, batch 64 (the sizes the paper
// fixes). The vocabulary is not given there; we use 10,000 words (the Penn
// Treebank's, the usual small-vocabulary benchmark) with a full softmax,
// option `vocab`. Embedding size = hidden size.
//
// Per time step: an embedding lookup, two BasicLSTMCells at TensorFlow op
// granularity (model_builder.h), and a softmax layer with its cross-entropy
// loss; the step losses are summed. Weights are shared over time.
//
// Layer marks (for the expert placement: one LSTM layer per GPU): the
// embedding and LSTM layer 0 are layer 0; LSTM layer l is layer l; the
// softmax goes with the last layer.
#include <string>

#include "zoo/builders.h"
#include "zoo/model_builder.h"

namespace devplace {

Result<Graph> build_rnnlm(ZooOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t layers, options.get_int("layers", 2, 1, 64));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t hidden, options.get_int("hidden", 2048, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t steps, options.get_int("steps", 40, 1, 10'000));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t batch, options.get_int("batch", 64, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t vocab, options.get_int("vocab", 10'000, 2, 1 << 24));
  // About a dozen forward ops per layer and step.
  DEVPLACE_RETURN_IF_ERROR(options.check_product("layers x steps", layers, steps, 50'000));

  ModelBuilder m("rnnlm");
  m.set_layer(0);
  const TensorId table = m.variable("embedding", {vocab, hidden});
  std::vector<TensorId> weights, biases;
  std::vector<ModelBuilder::LstmState> state;
  for (int64_t l = 0; l < layers; ++l) {
    m.set_layer(static_cast<int32_t>(l));
    const std::string cell = "lstm" + std::to_string(l);
    weights.push_back(m.variable(cell + "/kernel", {2 * hidden, 4 * hidden}));
    biases.push_back(m.variable(cell + "/bias", {4 * hidden}));
    state.push_back({m.zeros(cell + "/h0", {batch, hidden}), m.zeros(cell + "/c0", {batch, hidden})});
  }
  m.set_layer(static_cast<int32_t>(layers - 1));
  const TensorId softmax_w = m.variable("softmax/weights", {hidden, vocab});
  const TensorId softmax_b = m.variable("softmax/bias", {vocab});

  std::vector<TensorId> losses;
  for (int64_t t = 0; t < steps; ++t) {
    const std::string ts = "t" + std::to_string(t);
    m.set_layer(0);
    const TensorId ids = m.input(ts + "/input_ids", {batch}, DType::kInt32);
    TensorId x = m.embedding(ts + "/embedding_lookup", ids, table);
    for (int64_t l = 0; l < layers; ++l) {
      m.set_layer(static_cast<int32_t>(l));
      state[l] = m.lstm_cell(ts + "/lstm" + std::to_string(l), x, state[l], weights[l], biases[l]);
      x = state[l].h;
    }
    m.set_layer(static_cast<int32_t>(layers - 1));
    const TensorId labels = m.input(ts + "/labels", {batch}, DType::kInt32);
    const TensorId logits = m.bias_add(ts + "/softmax/BiasAdd", m.matmul(ts + "/softmax/MatMul", x, softmax_w), softmax_b);
    losses.push_back(m.softmax_cross_entropy(ts + "/loss", logits, labels));
  }
  m.add_n("total_loss", losses);
  return std::move(m).build();
}

}  // namespace devplace
