// File: policy.cc
// The seq2seq placement network and the rl placer's policy (see policy.h).
#include "rl/policy.h"

#include <cmath>
#include <limits>

#include "common/check.h"
#include "rl/lstm_sequence.h"

namespace devplace::rl {

PolicyOptions policy_options(const TrainingRunOptions& training) {
  PolicyOptions options;
  // The default recipe's network sees its placed neighbours' devices, with
  // an affinity of 3 (docs/rl.md, the ablation); the paper's does not.
  if (!training.paper_recipe) {
    options.neighbour_devices = true;
    options.affinity = 3.0;
  }
  if (training.policy_hidden > 0) options.hidden = training.policy_hidden;
  if (training.attention != AttentionKind::kDefault)
    options.attention_kind = training.attention == AttentionKind::kAdditive ? Attention::kAdditive : Attention::kMultiplicative;
  if (training.stickiness >= 0) options.stickiness = training.stickiness;
  if (training.neighbour_devices >= 0) options.neighbour_devices = training.neighbour_devices == 1;
  if (training.affinity >= 0) options.affinity = training.affinity;
  if (training.speed_prior >= 0) options.speed_prior = training.speed_prior;
  if (training.load_input >= 0) options.load_input = training.load_input == 1;
  return options;
}

Seq2SeqNetImpl::Seq2SeqNetImpl(int feature_dim, int num_devices, const PolicyOptions& options)
    : options_(options), num_devices_(num_devices) {
  const int h = options.hidden;
  const int e = options.device_embedding;
  embed_ = register_module("embed", torch::nn::Linear(feature_dim, h));
  // LSTM weights start as torch's do: U(-1/sqrt(hidden), 1/sqrt(hidden)).
  auto uniform = [](std::initializer_list<int64_t> shape, int64_t hidden) {
    const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
    return torch::empty(shape).uniform_(-bound, bound);
  };
  for (int dir = 0; dir < 2; ++dir) {
    const std::string suffix = dir == 0 ? "_forward" : "_backward";
    enc_w_ih_[dir] = register_parameter("encoder_w_ih" + suffix, uniform({4 * h, h}, h));
    enc_w_hh_[dir] = register_parameter("encoder_w_hh" + suffix, uniform({4 * h, h}, h));
    enc_bias_[dir] = register_parameter("encoder_bias" + suffix, uniform({4 * h}, h));
  }
  dec_w_ih_ = register_parameter("decoder_w_ih", uniform({8 * h, e + 2 * h}, 2 * h));
  dec_w_hh_ = register_parameter("decoder_w_hh", uniform({8 * h, 2 * h}, 2 * h));
  dec_bias_ = register_parameter("decoder_bias", uniform({8 * h}, 2 * h));
  device_embed_ = register_module("device_embed", torch::nn::Embedding(num_devices + 1, e));
  if (options.attention_kind == Attention::kAdditive) {
    attend_encoder_ = register_module("attend_encoder", torch::nn::Linear(torch::nn::LinearOptions(2 * h, options.attention).bias(false)));
    attend_decoder_ = register_module("attend_decoder", torch::nn::Linear(2 * h, options.attention));
    attend_score_ = register_module("attend_score", torch::nn::Linear(torch::nn::LinearOptions(options.attention, 1).bias(false)));
  } else {
    attend_encoder_ = register_module("attend_encoder", torch::nn::Linear(torch::nn::LinearOptions(2 * h, 2 * h).bias(false)));
  }
  out_ = register_module("out", torch::nn::Linear(4 * h, num_devices));
  if (options.neighbour_devices) {
    dec_w_nb_ = register_parameter("decoder_w_neighbours", uniform({8 * h, num_devices}, 2 * h));
    out_nb_ = register_module("out_neighbours", torch::nn::Linear(torch::nn::LinearOptions(num_devices, num_devices).bias(false)));
    torch::NoGradGuard no_grad;
    out_nb_->weight.zero_();
  }
  if (options.load_input) {
    dec_w_load_ = register_parameter("decoder_w_loads", uniform({8 * h, 2 * num_devices}, 2 * h));
    out_load_ = register_parameter("out_loads", torch::zeros({2}));
  }
}

namespace {

// Attention context for decoder states `query` [N, Q, 2H] over encoder
// states `enc` [B, G, 2H] with keys as attention_keys made them; B is 1
// (shared by the N rows) or N.
torch::Tensor attention_context(const torch::Tensor& query, const torch::Tensor& enc, const torch::Tensor& keys, bool additive,
                                torch::nn::Linear& attend_decoder, torch::nn::Linear& attend_score) {
  const int64_t n = query.size(0), q = query.size(1), g = enc.size(1);
  torch::Tensor scores;  // [N, Q, G]
  if (additive) {
    // Bahdanau: score_j = v . tanh(W_e e_j + W_d h): [N, Q, G, A].
    const torch::Tensor k4 = keys.unsqueeze(1);                                  // [B, 1, G, A]
    const torch::Tensor q4 = attend_decoder->forward(query).unsqueeze(2);        // [N, Q, 1, A]
    scores = attend_score->forward(torch::tanh(k4 + q4)).squeeze(3);
  } else if (enc.size(0) == 1) {
    scores = torch::mm(query.reshape({n * q, -1}), keys[0]).reshape({n, q, g});  // keys [1, 2H, G]
  } else {
    scores = torch::bmm(query, keys);
  }
  const torch::Tensor weights = torch::softmax(scores, 2);
  if (enc.size(0) == 1) return torch::mm(weights.reshape({n * q, g}), enc[0]).reshape({n, q, -1});
  return torch::bmm(weights, enc);
}

// out[s][d] += the weights of step's placed neighbours whose device in
// `devices` (a [K, G] accessor) is d, for each sample s; `neighbours` holds
// one list shared by the K samples, or one per sample.
void add_neighbour_histogram(const std::vector<PlacedNeighbours>& neighbours, int64_t step,
                             const torch::TensorAccessor<int64_t, 2>& devices, float* out, int64_t row_stride,
                             int64_t num_devices) {
  const int64_t k = devices.size(0);
  for (int64_t s = 0; s < k; ++s) {
    const PlacedNeighbours& nb = neighbours.size() == 1 ? neighbours[0] : neighbours[s];
    for (int64_t i = nb.offsets[step]; i < nb.offsets[step + 1]; ++i) {
      const int64_t dev = devices[s][nb.index[i]];
      if (dev >= 0 && dev < num_devices) out[s * row_stride + dev] += nb.weight[i];
    }
  }
}

}  // namespace

PolicySample Seq2SeqNetImpl::forward(const torch::Tensor& features, const torch::Tensor& allowed, int64_t k, bool greedy,
                                     double noise_std, const torch::Tensor& forced,
                                     const std::vector<PlacedNeighbours>* neighbours, const torch::Tensor& prior,
                                     const torch::Tensor& loads) {
  const int64_t b = features.size(0);
  const int64_t g = features.size(1);
  const int64_t d = num_devices_;
  const int64_t h2 = 2 * options_.hidden;
  const int64_t e = options_.device_embedding;
  DEVPLACE_CHECK(b == 1 || b == k);
  DEVPLACE_CHECK(allowed.size(0) == b && allowed.size(1) == g && allowed.size(2) == d);
  const bool additive = options_.attention_kind == Attention::kAdditive;
  const bool use_neighbours = options_.neighbour_devices && neighbours != nullptr;
  if (use_neighbours) {
    DEVPLACE_CHECK(neighbours->size() == 1 || static_cast<int64_t>(neighbours->size()) == k);
    for (const PlacedNeighbours& nb : *neighbours) DEVPLACE_CHECK(static_cast<int64_t>(nb.offsets.size()) == g + 1);
  }
  const bool use_loads = options_.load_input && loads.defined();
  // loads [B, G, D, 2] (or [G, D, 2], shared): the groups' work and memory shares.
  const torch::Tensor group_shares = use_loads && loads.dim() == 3 ? loads.unsqueeze(0) : loads;
  if (use_loads)
    DEVPLACE_CHECK(group_shares.dim() == 4 && group_shares.size(0) == b && group_shares.size(1) == g && group_shares.size(2) == d &&
                   group_shares.size(3) == 2);
  const float affinity = static_cast<float>(options_.affinity);
  const float inv_temperature = static_cast<float>(1.0 / options_.temperature);
  const float clip = static_cast<float>(options_.logit_clip);
  const bool cooled = sampling_temperature_ != 1.0;
  const float inv_sampling_temperature = static_cast<float>(1.0 / sampling_temperature_);

  // Encoder, once per sequence: [B, G, 2H].
  const torch::Tensor x = torch::relu(embed_->forward(features));
  const torch::Tensor enc = torch::cat({lstm_sequence(torch::matmul(x, enc_w_ih_[0].t()) + enc_bias_[0], enc_w_hh_[0], false),
                                        lstm_sequence(torch::matmul(x, enc_w_ih_[1].t()) + enc_bias_[1], enc_w_hh_[1], true)},
                                       2);
  // Additive: W_e e_j [B, G, A]. Multiplicative: (W e_j)^T [B, 2H, G], so that scores are h . W e_j.
  const torch::Tensor keys = additive ? attend_encoder_->forward(enc) : attend_encoder_->forward(enc).transpose(1, 2);
  // The mask (0 or -inf) plus the logit noise: [K, G, D].
  torch::Tensor offset;
  {
    torch::NoGradGuard no_grad;
    offset = torch::zeros({b, g, d}).masked_fill_(allowed.logical_not(), -std::numeric_limits<float>::infinity()).expand({k, g, d}).clone();
    if (prior.defined()) {
      DEVPLACE_CHECK(prior.size(0) == b && prior.size(1) == g && prior.size(2) == d);
      offset.add_(prior.expand({k, g, d}));
    }
    if (noise_std > 0 && !greedy && !forced.defined()) offset.add_(torch::randn({k, g, d}) * noise_std);
  }

  // Pass 1, without gradients: choose the devices step by step.
  torch::Tensor devices;  // [K, G]
  if (forced.defined()) {
    devices = forced;
  } else {
    torch::NoGradGuard no_grad;
    const torch::Tensor gumbel =
        greedy ? torch::Tensor() : -torch::log(-torch::log(torch::rand({k, g, d}).clamp_(1e-10, 1.0 - 1e-7)));
    const torch::Tensor w_hh_t = dec_w_hh_.t();
    // The encoder's share of the gates, step-major [G, B, 8H]; the device embedding's, per device [D + 1, 8H].
    const torch::Tensor gates_in = (torch::matmul(enc, dec_w_ih_.narrow(1, e, h2).t()) + dec_bias_).transpose(0, 1).contiguous();
    const torch::Tensor device_gates = torch::mm(device_embed_->weight, dec_w_ih_.narrow(1, 0, e).t());
    torch::Tensor hidden = torch::zeros({k, h2});
    torch::Tensor cell = torch::zeros({k, h2});
    torch::Tensor prev = torch::full({k}, d, torch::kLong);  // the start token
    devices = torch::full({k, g}, d, torch::kLong);
    const auto chosen = devices.accessor<int64_t, 2>();
    torch::Tensor histogram = use_neighbours ? torch::zeros({k, d}) : torch::Tensor();
    // The devices' loads so far, [K, 2D]: work shares, then memory shares.
    torch::Tensor load = use_loads ? torch::zeros({k, 2 * d}) : torch::Tensor();
    // [B, G, 2D]: work shares, then memory shares, per step.
    const torch::Tensor group_loads = use_loads ? group_shares.permute({0, 1, 3, 2}).reshape({b, g, 2 * d}).contiguous() : torch::Tensor();
    for (int64_t step = 0; step < g; ++step) {
      torch::Tensor gates_x = gates_in[step] + device_gates.index_select(0, prev);
      if (use_neighbours) {
        histogram.zero_();
        add_neighbour_histogram(*neighbours, step, chosen, histogram.data_ptr<float>(), d, d);
        gates_x = gates_x + torch::mm(histogram, dec_w_nb_.t());
      }
      if (use_loads) gates_x = gates_x + torch::mm(load, dec_w_load_.t());
      const torch::Tensor gates = torch::addmm(gates_x, hidden, w_hh_t);
      lstm_step_inplace(gates, hidden, cell);
      const torch::Tensor context = attention_context(hidden.unsqueeze(1), enc, keys, additive, attend_decoder_, attend_score_).squeeze(1);
      torch::Tensor raw = out_->forward(torch::cat({hidden, context}, 1));
      if (use_neighbours) raw = raw + out_nb_->forward(histogram);
      torch::Tensor logits = clip * torch::tanh(raw * inv_temperature) + offset.select(1, step);
      if (use_neighbours && affinity != 0) logits += affinity * histogram;
      if (options_.stickiness != 0) logits += options_.stickiness * torch::one_hot(prev, d + 1).narrow(1, 0, d).to(torch::kFloat);
      const torch::Tensor projected_load = use_loads ? load + group_loads.select(1, step) : torch::Tensor();  // [K, 2D]
      if (use_loads) logits += projected_load.view({k, 2, d}).transpose(1, 2).matmul(out_load_);
      if (cooled) logits *= inv_sampling_temperature;
      if (!greedy) logits += gumbel.select(1, step);
      prev = logits.argmax(1);
      devices.select(1, step).copy_(prev);
      if (use_loads) {
        const auto pick = prev.accessor<int64_t, 1>();
        const auto add = group_loads.accessor<float, 3>();
        auto acc = load.accessor<float, 2>();
        for (int64_t s = 0; s < k; ++s) {
          const int64_t row = b == 1 ? 0 : s;
          acc[s][pick[s]] += add[row][step][pick[s]];
          acc[s][d + pick[s]] += add[row][step][d + pick[s]];
        }
      }
    }
  }

  // Pass 2, with gradients, given the devices: the decoder over the whole
  // sequence, then attention and logits for all steps at once.
  const torch::Tensor prev_devices = torch::cat({torch::full({k, 1}, d, torch::kLong), devices.narrow(1, 0, g - 1)}, 1);
  torch::Tensor histograms;  // [K, G, D], no gradient: the devices are given
  if (use_neighbours) {
    histograms = torch::zeros({k, g, d});
    const torch::Tensor given = devices.contiguous();
    const auto acc = given.accessor<int64_t, 2>();
    float* base = histograms.data_ptr<float>();
    for (int64_t step = 0; step < g; ++step) add_neighbour_histogram(*neighbours, step, acc, base + step * d, g * d, d);
  }
  torch::Tensor projected = torch::matmul(device_embed_->forward(prev_devices), dec_w_ih_.narrow(1, 0, e).t()) +
                            (torch::matmul(enc, dec_w_ih_.narrow(1, e, h2).t()) + dec_bias_);  // [K, G, 8H]
  if (use_neighbours) projected = projected + torch::matmul(histograms, dec_w_nb_.t());
  torch::Tensor before_loads;  // [K, G, D, 2]: each device's loads before each step (data: no gradient of its own)
  if (use_loads) {
    {
      torch::NoGradGuard no_grad;
      const torch::Tensor placed = torch::one_hot(devices, d).to(torch::kFloat).unsqueeze(3) * group_shares;  // [K, G, D, 2]
      before_loads = placed.cumsum(1) - placed;
    }
    // Outside the guard: the decoder's input keeps its gradient.
    projected = projected + torch::matmul(before_loads.transpose(2, 3).reshape({k, g, 2 * d}), dec_w_load_.t());
  }
  const torch::Tensor states = lstm_sequence(projected, dec_w_hh_, false);  // [K, G, 2H]
  const torch::Tensor context = attention_context(states, enc, keys, additive, attend_decoder_, attend_score_);
  torch::Tensor raw = out_->forward(torch::cat({states, context}, 2));
  if (use_neighbours) raw = raw + out_nb_->forward(histograms);
  torch::Tensor logits = clip * torch::tanh(raw * inv_temperature) + offset;
  if (use_neighbours && affinity != 0) logits = logits + affinity * histograms;
  if (options_.stickiness != 0) logits = logits + options_.stickiness * torch::one_hot(prev_devices, d + 1).narrow(2, 0, d).to(torch::kFloat);
  if (use_loads) logits = logits + (before_loads + group_shares).matmul(out_load_);
  if (cooled) logits = logits * inv_sampling_temperature;
  const torch::Tensor logp = torch::log_softmax(logits, 2);  // [K, G, D]
  const torch::Tensor log_prob = logp.gather(2, devices.unsqueeze(2)).squeeze(2);  // [K, G]
  const torch::Tensor p = logp.exp();
  const torch::Tensor entropy = -(p * torch::where(p > 0, logp, torch::zeros_like(logp))).sum(2);  // [K, G]
  return {devices.contiguous(), devices.contiguous(), log_prob, entropy};
}

std::string Seq2SeqNetImpl::fixed_settings() const {
  const double affinity = options_.neighbour_devices ? options_.affinity : 0.0;
  std::string settings = "stickiness=" + std::to_string(options_.stickiness) + ";affinity=" + std::to_string(affinity);
  if (options_.speed_prior != 0) settings += ";speed_prior=" + std::to_string(options_.speed_prior);
  if (options_.load_input) settings += ";loads=on";
  return settings;
}

Seq2SeqPolicy::Seq2SeqPolicy(torch::Tensor features, torch::Tensor allowed, int num_devices, const PolicyOptions& options,
                             PlacedNeighbours neighbours, torch::Tensor prior, torch::Tensor loads)
    : features_(features.unsqueeze(0)),
      allowed_(allowed.unsqueeze(0)),
      prior_(prior.defined() ? prior.unsqueeze(0) : torch::Tensor()),
      loads_(std::move(loads)),
      neighbours_{std::move(neighbours)} {
  DEVPLACE_CHECK(!options.neighbour_devices || static_cast<int64_t>(neighbours_[0].offsets.size()) == features.size(0) + 1);
  DEVPLACE_CHECK(!options.load_input || (loads_.defined() && loads_.size(0) == features.size(0)));
  net_ = register_module("net", Seq2SeqNet(static_cast<int>(features.size(1)), num_devices, options));
}

PolicySample Seq2SeqPolicy::sample(int64_t k, bool greedy, double noise_std) {
  return net_->forward(features_, allowed_, k, greedy, noise_std, {}, &neighbours_, prior_, loads_);
}

PolicySample Seq2SeqPolicy::evaluate(const torch::Tensor& actions) {
  return net_->forward(features_, allowed_, actions.size(0), /*greedy=*/false, 0.0, actions, &neighbours_, prior_, loads_);
}

torch::Tensor Seq2SeqPolicy::actions_for(const torch::Tensor& devices) { return devices; }

}  // namespace devplace::rl
