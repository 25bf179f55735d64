// File: nmt.cc
// zoo:nmt, the papers' neural machine translation model: an LSTM encoder
// and decoder with attention, hidden size 1024, 40 source and 40 target
// steps, batch 64; `layers` = 2, 4 or 8 LSTM layers on each side (the ICLR
// 2018 paper's NMT-2/4/8; ICML 2017 used 2). Source and target vocabularies
// are not given there; we use 32,000 wordpieces each (GNMT's), option `vocab`,
// with a full softmax. Embedding size = hidden size.
//
// Encoder: per source step an embedding lookup and `layers` BasicLSTMCells.
// The top encoder outputs are stacked into the attention memory [B, S, H].
// Decoder: per target step an embedding lookup, `layers` cells, then
// Luong-style attention on the top output: scores = BatchMatMul(h, memory^T),
// softmax, context = BatchMatMul(weights, memory), attentional state =
// tanh(W [context; h]), then the softmax layer and cross-entropy loss.
//
// Layer marks (expert placement: one LSTM layer per device): encoder layer l
// is mark l (its embedding with layer 0), decoder layer l is mark layers + l
// (its embedding with the first decoder layer); attention and softmax go with
// the last decoder layer. So 2 x layers marks split contiguously over the GPUs.
#include <string>

#include "zoo/builders.h"
#include "zoo/model_builder.h"

namespace devplace {

namespace {

struct LstmStack {
  std::vector<TensorId> weights, biases;
  std::vector<ModelBuilder::LstmState> state;
};

LstmStack make_stack(ModelBuilder& m, const std::string& prefix, int64_t layers, int32_t first_mark, int64_t hidden,
                     int64_t batch) {
  LstmStack s;
  for (int64_t l = 0; l < layers; ++l) {
    m.set_layer(first_mark + static_cast<int32_t>(l));
    const std::string cell = prefix + "/lstm" + std::to_string(l);
    s.weights.push_back(m.variable(cell + "/kernel", {2 * hidden, 4 * hidden}));
    s.biases.push_back(m.variable(cell + "/bias", {4 * hidden}));
    s.state.push_back({m.zeros(cell + "/h0", {batch, hidden}), m.zeros(cell + "/c0", {batch, hidden})});
  }
  return s;
}

TensorId run_stack(ModelBuilder& m, LstmStack& s, const std::string& prefix, int32_t first_mark, TensorId x) {
  for (size_t l = 0; l < s.state.size(); ++l) {
    m.set_layer(first_mark + static_cast<int32_t>(l));
    s.state[l] = m.lstm_cell(prefix + "/lstm" + std::to_string(l), x, s.state[l], s.weights[l], s.biases[l]);
    x = s.state[l].h;
  }
  return x;
}

}  // namespace

Result<Graph> build_nmt(ZooOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t layers, options.get_int("layers", 2, 1, 64));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t hidden, options.get_int("hidden", 1024, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t steps, options.get_int("steps", 40, 1, 10'000));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t batch, options.get_int("batch", 64, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t vocab, options.get_int("vocab", 32'000, 2, 1 << 24));
  // About 30 forward ops per layer and step (encoder and decoder).
  DEVPLACE_RETURN_IF_ERROR(options.check_product("layers x steps", layers, steps, 25'000));
  const int32_t enc0 = 0;
  const int32_t dec0 = static_cast<int32_t>(layers);
  const int32_t last = static_cast<int32_t>(2 * layers - 1);

  ModelBuilder m("nmt");
  m.set_layer(enc0);
  const TensorId src_table = m.variable("encoder/embedding", {vocab, hidden});
  LstmStack enc = make_stack(m, "encoder", layers, enc0, hidden, batch);
  m.set_layer(dec0);
  const TensorId tgt_table = m.variable("decoder/embedding", {vocab, hidden});
  LstmStack dec = make_stack(m, "decoder", layers, dec0, hidden, batch);
  m.set_layer(last);
  const TensorId attn_w = m.variable("attention/weights", {2 * hidden, hidden});
  const TensorId softmax_w = m.variable("softmax/weights", {hidden, vocab});
  const TensorId softmax_b = m.variable("softmax/bias", {vocab});

  std::vector<TensorId> top;
  for (int64_t t = 0; t < steps; ++t) {
    const std::string ts = "encoder/t" + std::to_string(t);
    m.set_layer(enc0);
    const TensorId ids = m.input(ts + "/input_ids", {batch}, DType::kInt32);
    const TensorId x = m.embedding(ts + "/embedding_lookup", ids, src_table);
    const TensorId h = run_stack(m, enc, ts, enc0, x);
    m.set_layer(static_cast<int32_t>(layers - 1));
    top.push_back(m.reshape(ts + "/expand", h, {batch, 1, hidden}));
  }
  m.set_layer(static_cast<int32_t>(layers - 1));
  const TensorId memory = m.concat("encoder/memory", top, 1);  // [B, S, H]

  std::vector<TensorId> losses;
  for (int64_t t = 0; t < steps; ++t) {
    const std::string ts = "decoder/t" + std::to_string(t);
    m.set_layer(dec0);
    const TensorId ids = m.input(ts + "/input_ids", {batch}, DType::kInt32);
    const TensorId x = m.embedding(ts + "/embedding_lookup", ids, tgt_table);
    const TensorId h = run_stack(m, dec, ts, dec0, x);
    m.set_layer(last);
    const TensorId query = m.reshape(ts + "/attention/query", h, {batch, 1, hidden});
    const TensorId scores = m.batch_matmul(ts + "/attention/scores", query, memory, /*transpose_b=*/true);  // [B,1,S]
    const TensorId weights = m.softmax(ts + "/attention/softmax", scores);
    const TensorId context = m.batch_matmul(ts + "/attention/context", weights, memory, false);  // [B,1,H]
    const TensorId context2 = m.reshape(ts + "/attention/context_2d", context, {batch, hidden});
    const TensorId joined = m.concat(ts + "/attention/concat", {context2, h}, 1);
    const TensorId attentional = m.tanh(ts + "/attention/Tanh", m.matmul(ts + "/attention/MatMul", joined, attn_w));
    const TensorId labels = m.input(ts + "/labels", {batch}, DType::kInt32);
    const TensorId logits =
        m.bias_add(ts + "/softmax/BiasAdd", m.matmul(ts + "/softmax/MatMul", attentional, softmax_w), softmax_b);
    losses.push_back(m.softmax_cross_entropy(ts + "/loss", logits, labels));
  }
  m.set_layer(last);
  m.add_n("total_loss", losses);
  return std::move(m).build();
}

}  // namespace devplace
