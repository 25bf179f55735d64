// File: transformer.cc
// zoo:transformer, the base Transformer (Vaswani et al. 2017): 6 encoder and
// 6 decoder layers, d_model 512, 8 heads, feed-forward 2048, shared 32,000
// wordpiece vocabulary; batch 32 sentences of 128 source and 128 target
// tokens (4,096 tokens a side; the paper batched ~25k tokens, option
// `batch`/`seq`). Attention at op granularity: Q, K, V projections, reshape
// and transpose into heads, BatchMatMul scores, softmax, BatchMatMul context,
// back to [tokens, d_model], output projection, residual add, LayerNorm.
//
// Layer marks: encoder layer i is mark i (source embedding with 0), decoder
// layer i is 6 + i (target embedding with 6), the output projection and
// loss go with the last decoder layer.
#include <string>

#include "zoo/builders.h"
#include "zoo/model_builder.h"

namespace devplace {

namespace {

struct Dims {
  int64_t batch, seq, d_model, heads, ff;
};

TensorId attention(ModelBuilder& m, const std::string& n, const Dims& d, TensorId query_in, TensorId memory_in) {
  const int64_t tokens = d.batch * d.seq;
  const int64_t dk = d.d_model / d.heads;
  auto heads = [&](const std::string& name, TensorId x) {
    const TensorId r = m.reshape(name + "/reshape", x, {d.batch, d.seq, d.heads, dk});
    return m.transpose(name + "/transpose", r, {d.batch * d.heads, d.seq, dk});
  };
  const TensorId q = heads(n + "/q", m.dense(n + "/q", query_in, d.d_model));
  const TensorId k = heads(n + "/k", m.dense(n + "/k", memory_in, d.d_model));
  const TensorId v = heads(n + "/v", m.dense(n + "/v", memory_in, d.d_model));
  const TensorId scores = m.unary(n + "/scale", "Mul", m.batch_matmul(n + "/scores", q, k, true), 1);
  const TensorId weights = m.softmax(n + "/softmax", scores);
  const TensorId context = m.batch_matmul(n + "/context", weights, v, false);
  const TensorId merged = m.reshape(n + "/merge", m.transpose(n + "/merge_t", context, {d.batch, d.seq, d.heads, dk}), {tokens, d.d_model});
  return m.dense(n + "/out", merged, d.d_model);
}

TensorId feed_forward(ModelBuilder& m, const std::string& n, const Dims& d, TensorId x) {
  return m.dense(n + "/ff2", m.relu(n + "/relu", m.dense(n + "/ff1", x, d.ff)), d.d_model);
}

TensorId residual_norm(ModelBuilder& m, const std::string& n, TensorId x, TensorId y) {
  return m.layer_norm(n + "/LayerNorm", m.add(n + "/add", x, y));
}

}  // namespace

Result<Graph> build_transformer(ZooOptions& options) {
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t layers, options.get_int("layers", 6, 1, 64));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t batch, options.get_int("batch", 32, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t seq, options.get_int("seq", 128, 1, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t d_model, options.get_int("d_model", 512, 8, 1 << 16));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t heads, options.get_int("heads", 8, 1, 1024));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t ff, options.get_int("ff", 2048, 1, 1 << 20));
  DEVPLACE_ASSIGN_OR_RETURN(const int64_t vocab, options.get_int("vocab", 32'000, 2, 1 << 24));
  if (d_model % heads != 0)
    return invalid_input("zoo:transformer: d_model (" + std::to_string(d_model) + ") must be a multiple of heads (" + std::to_string(heads) + ")");
  const Dims d{batch, seq, d_model, heads, ff};
  const int64_t tokens = batch * seq;
  const int32_t dec0 = static_cast<int32_t>(layers);

  ModelBuilder m("transformer");
  m.set_layer(0);
  const TensorId table = m.variable("embedding", {vocab, d_model});
  const TensorId src_ids = m.input("source_ids", {tokens}, DType::kInt32);
  TensorId x = m.embedding("encoder/embedding", src_ids, table);
  for (int64_t l = 0; l < layers; ++l) {
    m.set_layer(static_cast<int32_t>(l));
    const std::string n = "encoder/layer" + std::to_string(l);
    x = residual_norm(m, n + "/attention", x, attention(m, n + "/self_attention", d, x, x));
    x = residual_norm(m, n + "/ffn", x, feed_forward(m, n + "/ffn", d, x));
  }
  const TensorId memory = x;
  m.set_layer(dec0);
  const TensorId tgt_ids = m.input("target_ids", {tokens}, DType::kInt32);
  TensorId y = m.embedding("decoder/embedding", tgt_ids, table);
  for (int64_t l = 0; l < layers; ++l) {
    m.set_layer(dec0 + static_cast<int32_t>(l));
    const std::string n = "decoder/layer" + std::to_string(l);
    y = residual_norm(m, n + "/self", y, attention(m, n + "/self_attention", d, y, y));
    y = residual_norm(m, n + "/cross", y, attention(m, n + "/cross_attention", d, y, memory));
    y = residual_norm(m, n + "/ffn", y, feed_forward(m, n + "/ffn", d, y));
  }
  const TensorId logits = m.dense("output_projection", y, vocab);
  const TensorId labels = m.input("labels", {tokens}, DType::kInt32);
  m.softmax_cross_entropy("loss", logits, labels);
  return std::move(m).build();
}

}  // namespace devplace
