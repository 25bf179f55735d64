// File: policy.cc
// The seq2seq placement policy (see policy.h).
#include "rl/policy.h"

#include <limits>

namespace devplace::rl {

Seq2SeqPolicyImpl::Seq2SeqPolicyImpl(int feature_dim, int num_devices, const PolicyOptions& options)
    : options_(options), num_devices_(num_devices) {
  const int h = options.hidden;
  embed_ = register_module("embed", torch::nn::Linear(feature_dim, h));
  encoder_ = register_module("encoder", torch::nn::LSTM(torch::nn::LSTMOptions(h, h).bidirectional(true)));
  decoder_ = register_module("decoder", torch::nn::LSTMCell(options.device_embedding + 2 * h, 2 * h));
  device_embed_ = register_module("device_embed", torch::nn::Embedding(num_devices + 1, options.device_embedding));
  attend_encoder_ = register_module("attend_encoder", torch::nn::Linear(torch::nn::LinearOptions(2 * h, options.attention).bias(false)));
  attend_decoder_ = register_module("attend_decoder", torch::nn::Linear(2 * h, options.attention));
  attend_score_ = register_module("attend_score", torch::nn::Linear(torch::nn::LinearOptions(options.attention, 1).bias(false)));
  out_ = register_module("out", torch::nn::Linear(4 * h, num_devices));
}

PolicyOutput Seq2SeqPolicyImpl::forward(const torch::Tensor& features, const torch::Tensor& allowed, int64_t k, bool greedy,
                                        double noise_std) {
  const int64_t g = features.size(0);
  // Encoder: [G, 1, H] -> [G, 2H], shared by the K samples.
  const torch::Tensor x = torch::relu(embed_->forward(features)).unsqueeze(1);
  const torch::Tensor enc = std::get<0>(encoder_->forward(x)).squeeze(1);
  const torch::Tensor keys = attend_encoder_->forward(enc);  // [G, A]

  torch::Tensor h = torch::zeros({k, 2 * options_.hidden});
  torch::Tensor c = torch::zeros({k, 2 * options_.hidden});
  torch::Tensor prev = torch::full({k}, num_devices_, torch::kLong);  // the start token
  std::vector<torch::Tensor> chosen, log_probs, entropies;
  chosen.reserve(g);
  log_probs.reserve(g);
  entropies.reserve(g);
  const torch::Tensor neg_inf = torch::full({1}, -std::numeric_limits<float>::infinity());
  for (int64_t step = 0; step < g; ++step) {
    const torch::Tensor input = torch::cat({device_embed_->forward(prev), enc[step].expand({k, -1})}, 1);
    std::tie(h, c) = decoder_->forward(input, std::make_tuple(h, c));
    // Bahdanau attention: score_j = v . tanh(W_e enc_j + W_d h).
    const torch::Tensor scores = attend_score_->forward(torch::tanh(keys.unsqueeze(0) + attend_decoder_->forward(h).unsqueeze(1))).squeeze(2);
    const torch::Tensor context = torch::matmul(torch::softmax(scores, 1), enc);  // [K, 2H]
    torch::Tensor logits = out_->forward(torch::cat({h, context}, 1)) / options_.temperature;
    logits = options_.logit_clip * torch::tanh(logits);
    if (noise_std > 0) logits = logits + noise_std * torch::randn_like(logits);
    logits = torch::where(allowed[step].unsqueeze(0).expand({k, -1}), logits, neg_inf);
    const torch::Tensor logp = torch::log_softmax(logits, 1);
    const torch::Tensor p = logp.exp();
    const torch::Tensor device = greedy ? logits.argmax(1) : torch::multinomial(p.detach(), 1).squeeze(1);
    log_probs.push_back(logp.gather(1, device.unsqueeze(1)).squeeze(1));
    entropies.push_back(-(p * torch::where(p > 0, logp, torch::zeros_like(logp))).sum(1));
    chosen.push_back(device);
    prev = device;
  }
  return {torch::stack(chosen, 1), torch::stack(log_probs, 1).sum(1), torch::stack(entropies, 1).sum(1)};
}

}  // namespace devplace::rl
