// File: policy.h
// The paper's placement policy: a sequence-to-sequence network over the
// groups in topological order (Mirhoseini et al. 2017, section 3).
// - Encoder: a linear embedding of each group's features, then a
//   bidirectional LSTM.
// - Decoder: an LSTM cell that emits one device per group. Its input is the
//   embedding of the device it chose for the previous group (a start token
//   first) and the encoder state of the current group. Content-based
//   (Bahdanau) attention over all encoder states gives a context; the logits
//   come from [decoder state, context].
// - Logits: divided by a temperature, squashed by C x tanh, plus Gaussian
//   noise early in training (as the TensorFlow implementation did). Devices
//   the group may not use are masked.
// Only rl/ includes torch headers.
#pragma once

#include <torch/torch.h>

namespace devplace::rl {

struct PolicyOptions {
  int hidden = 64;            // per encoder direction; the decoder has 2 x hidden
  int device_embedding = 16;
  int attention = 64;
  double temperature = 2.0;
  double logit_clip = 5.0;    // C in C x tanh(logits / temperature)
};

struct PolicyOutput {
  torch::Tensor devices;   // [K, G] int64
  torch::Tensor log_prob;  // [K], summed over the groups
  torch::Tensor entropy;   // [K], summed over the groups
};

class Seq2SeqPolicyImpl : public torch::nn::Module {
 public:
  Seq2SeqPolicyImpl(int feature_dim, int num_devices, const PolicyOptions& options);

  // features: [G, F] float; allowed: [G, D] bool (some device true per row).
  // K placements: sampled (greedy = false, with logit noise of `noise_std`)
  // or the most likely device at each step (greedy = true).
  PolicyOutput forward(const torch::Tensor& features, const torch::Tensor& allowed, int64_t k, bool greedy, double noise_std);

 private:
  PolicyOptions options_;
  int64_t num_devices_;
  torch::nn::Linear embed_{nullptr};
  torch::nn::LSTM encoder_{nullptr};
  torch::nn::LSTMCell decoder_{nullptr};
  torch::nn::Embedding device_embed_{nullptr};
  torch::nn::Linear attend_encoder_{nullptr}, attend_decoder_{nullptr}, attend_score_{nullptr};
  torch::nn::Linear out_{nullptr};
};
TORCH_MODULE(Seq2SeqPolicy);

}  // namespace devplace::rl
