// File: portable_policy.cc
// The portable placement network and its policy files (see portable_policy.h).
#include "rl/portable_policy.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>

#include "common/check.h"
#include "common/file_io.h"
#include "rl/lstm_sequence.h"
#include "rl/pretrain_options.h"
#include "rl/training_state.h"

namespace devplace::rl {

namespace {

constexpr int64_t kPolicyFileVersion = 1;
constexpr int kDynamicInputs = kPortablePairInputs - kPairFeatures;  // histogram, work, memory, previous

// What the decoder has placed so far, per sample: the work and memory on
// each device and the previous group's device.
class RunningTotals {
 public:
  RunningTotals(const PortableInputs& in, int64_t k)
      : in_(in), k_(k), d_(in.num_devices()), work_(k * d_, 0.0f), memory_(k * d_, 0.0f), prev_(k, -1) {}

  // The dynamic inputs of step `step` for the K samples, [K][D][kDynamicInputs]
  // into `out`; `devices` holds the devices chosen for the earlier steps.
  void fill(int64_t step, const torch::TensorAccessor<int64_t, 2>& devices, float* out) const {
    const PlacedNeighbours& nb = in_.neighbours;
    for (int64_t s = 0; s < k_; ++s) {
      float* row = out + s * d_ * kDynamicInputs;
      for (int64_t d = 0; d < d_; ++d) {
        float* x = row + d * kDynamicInputs;
        x[0] = 0.0f;
        x[1] = std::min(work_[s * d_ + d], 2.0f);
        x[2] = std::min(memory_[s * d_ + d], 2.0f);
        x[3] = prev_[s] == d ? 1.0f : 0.0f;
      }
      for (int64_t i = nb.offsets[step]; i < nb.offsets[step + 1]; ++i) {
        const int64_t dev = devices[s][nb.index[i]];
        if (dev >= 0 && dev < d_) row[dev * kDynamicInputs] += nb.weight[i];
      }
    }
  }
  // Sample s put group `step` on `device`.
  void advance(int64_t step, int64_t s, int64_t device) {
    const size_t at = static_cast<size_t>(step) * d_ + device;
    work_[s * d_ + device] += in_.raw.work[at];
    memory_[s * d_ + device] += in_.raw.memory[at];
    prev_[s] = device;
  }

 private:
  const PortableInputs& in_;
  int64_t k_, d_;
  std::vector<float> work_, memory_;
  std::vector<int64_t> prev_;
};

// 0 where a group may use a device, -inf where not: [K, G, D], writable.
torch::Tensor mask_offset(const PortableInputs& in, int64_t k) {
  return torch::zeros({in.num_groups(), in.num_devices()})
      .masked_fill_(in.allowed.logical_not(), -std::numeric_limits<float>::infinity())
      .expand({k, in.num_groups(), in.num_devices()})
      .clone();
}

torch::Tensor uniform(std::initializer_list<int64_t> shape, int64_t fan) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(fan));
  return torch::empty(shape).uniform_(-bound, bound);
}

}  // namespace

PortableInputs portable_inputs(const Problem& problem, const Grouping& grouping) {
  PortableInputs in;
  in.raw = portable_features(problem, grouping);
  const int64_t g = in.raw.num_groups, d = in.raw.num_devices;
  in.group = torch::from_blob(in.raw.group.data(), {g, kPortableGroupFeatures}, torch::kFloat).clone();
  in.pair = torch::from_blob(in.raw.pair.data(), {g, d, kPairFeatures}, torch::kFloat).clone();
  in.allowed = torch::from_blob(in.raw.allowed.data(), {g, d}, torch::kUInt8).to(torch::kBool);
  in.neighbours = placed_neighbours(problem, grouping);
  in.edges = graph_edges(in.neighbours, g);
  return in;
}

PortableNetImpl::PortableNetImpl(const PortableOptions& options) : options_(options) {
  const int h = options.hidden;
  const int a = options.scorer;
  embed_ = register_module("embed", torch::nn::Linear(kPortableGroupFeatures, h));
  if (options.graph_rounds > 0) {
    graph_ = register_module("graph_encoder", GraphEncoder(h, 2 * h, options.graph_rounds));
  } else {
    for (int dir = 0; dir < 2; ++dir) {
      const std::string suffix = dir == 0 ? "_forward" : "_backward";
      enc_w_ih_[dir] = register_parameter("encoder_w_ih" + suffix, uniform({4 * h, h}, h));
      enc_w_hh_[dir] = register_parameter("encoder_w_hh" + suffix, uniform({4 * h, h}, h));
      enc_bias_[dir] = register_parameter("encoder_bias" + suffix, uniform({4 * h}, h));
    }
  }
  dec_w_ih_ = register_parameter("decoder_w_ih", uniform({8 * h, 2 * h}, 2 * h));
  dec_w_hh_ = register_parameter("decoder_w_hh", uniform({8 * h, 2 * h}, 2 * h));
  dec_bias_ = register_parameter("decoder_bias", uniform({8 * h}, 2 * h));
  prev_ = register_module("previous", torch::nn::Linear(torch::nn::LinearOptions(kPortablePairInputs, 8 * h).bias(false)));
  attend_ = register_module("attend", torch::nn::Linear(torch::nn::LinearOptions(2 * h, 2 * h).bias(false)));
  query_ = register_module("query", torch::nn::Linear(4 * h, a));
  key_ = register_module("key", torch::nn::Linear(kPortablePairInputs, a));
  score_ = register_module("score", torch::nn::Linear(torch::nn::LinearOptions(a, 1).bias(false)));
}

torch::Tensor PortableNetImpl::pointer_logits(const torch::Tensor& state_context, const torch::Tensor& pair) {
  const torch::Tensor query = query_->forward(state_context).unsqueeze(-2);                          // [..., 1, A]
  const torch::Tensor raw = score_->forward(torch::tanh(query + key_->forward(pair))).squeeze(-1);  // [..., D]
  const torch::Tensor histogram = pair.select(-1, kPairFeatures);
  const torch::Tensor logits = static_cast<float>(options_.logit_clip) * torch::tanh(raw * static_cast<float>(1.0 / options_.temperature)) +
                               static_cast<float>(options_.affinity) * histogram;
  return logit_temperature_ == 1.0 ? logits : logits * static_cast<float>(1.0 / logit_temperature_);
}

PortableNetImpl::Encoded PortableNetImpl::encode(const PortableInputs& in) {
  // Encoder: [1, G, 2H]; attention keys (W e_j)^T: [2H, G]; the encoder's share of the decoder gates [G, 8H].
  if (options_.graph_rounds > 0) {
    const torch::Tensor states = graph_->forward(torch::relu(embed_->forward(in.group)), in.edges);  // [G, 2H]
    return {states.unsqueeze(0), attend_->forward(states).t(), torch::matmul(states, dec_w_ih_.t()) + dec_bias_};
  }
  const torch::Tensor x = torch::relu(embed_->forward(in.group)).unsqueeze(0);
  const torch::Tensor enc = torch::cat({lstm_sequence(torch::matmul(x, enc_w_ih_[0].t()) + enc_bias_[0], enc_w_hh_[0], false),
                                        lstm_sequence(torch::matmul(x, enc_w_ih_[1].t()) + enc_bias_[1], enc_w_hh_[1], true)},
                                       2);
  return {enc, attend_->forward(enc[0]).t(), torch::matmul(enc[0], dec_w_ih_.t()) + dec_bias_};
}

torch::Tensor PortableNetImpl::decode(const PortableInputs& in, int64_t k, int64_t greedy_rows) {
  torch::NoGradGuard no_grad;
  const Encoded e = encode(in);
  return choose(in, e.states, e.keys, e.gates, mask_offset(in, k), k, greedy_rows);
}

PolicySample PortableNetImpl::forward(const PortableInputs& in, int64_t k, bool greedy, double noise_std, const torch::Tensor& forced) {
  const int64_t g = in.num_groups();
  const int64_t d = in.num_devices();
  const int64_t h2 = 2 * options_.hidden;

  const Encoded e = encode(in);
  const torch::Tensor& enc = e.states;
  const torch::Tensor& keys = e.keys;
  const torch::Tensor& encoder_gates = e.gates;
  torch::Tensor offset;  // mask and noise, [K, G, D]
  {
    torch::NoGradGuard no_grad;
    offset = mask_offset(in, k);
    if (noise_std > 0 && !greedy && !forced.defined()) offset.add_(torch::randn({k, g, d}) * noise_std);
  }

  // Pass 1, without gradients: choose the devices step by step.
  const torch::Tensor devices = forced.defined() ? forced.contiguous() : choose(in, enc, keys, encoder_gates, offset, k, greedy ? k : 0);

  // Pass 2, with gradients, given the devices.
  torch::Tensor dynamic = torch::zeros({k, g, d, kDynamicInputs});
  {
    const auto given = devices.accessor<int64_t, 2>();
    RunningTotals totals(in, k);
    float* base = dynamic.data_ptr<float>();
    std::vector<float> step_buffer(static_cast<size_t>(k * d * kDynamicInputs));
    for (int64_t step = 0; step < g; ++step) {
      totals.fill(step, given, step_buffer.data());
      for (int64_t s = 0; s < k; ++s) {
        std::copy_n(step_buffer.data() + s * d * kDynamicInputs, d * kDynamicInputs, base + (s * g + step) * d * kDynamicInputs);
        totals.advance(step, s, given[s][step]);
      }
    }
  }
  const torch::Tensor pair = torch::cat({in.pair.unsqueeze(0).expand({k, g, d, kPairFeatures}), dynamic}, 3);  // [K, G, D, P]
  torch::Tensor prev_input = torch::zeros({k, g, kPortablePairInputs});
  if (g > 1) {
    const torch::Tensor earlier = devices.narrow(1, 0, g - 1).reshape({k, g - 1, 1, 1}).expand({k, g - 1, 1, kPortablePairInputs});
    prev_input.narrow(1, 1, g - 1).copy_(pair.narrow(1, 0, g - 1).gather(2, earlier).squeeze(2));
  }
  const torch::Tensor projected = encoder_gates.unsqueeze(0) + prev_->forward(prev_input);  // [K, G, 8H]
  const torch::Tensor states = lstm_sequence(projected, dec_w_hh_, false);               // [K, G, 2H]
  const torch::Tensor weights = torch::softmax(torch::mm(states.reshape({k * g, h2}), keys), 1);
  const torch::Tensor context = torch::mm(weights, enc[0]).reshape({k, g, h2});
  const torch::Tensor logits = pointer_logits(torch::cat({states, context}, 2), pair) + offset;
  const torch::Tensor logp = torch::log_softmax(logits, 2);
  const torch::Tensor log_prob = logp.gather(2, devices.unsqueeze(2)).squeeze(2);
  const torch::Tensor p = logp.exp();
  const torch::Tensor entropy = -(p * torch::where(p > 0, logp, torch::zeros_like(logp))).sum(2);
  return {devices, devices, log_prob, entropy};
}

PortablePolicy::PortablePolicy(PortableNet net, PortableInputs inputs) : inputs_(std::move(inputs)) {
  base_temperature_ = net->logit_temperature();
  net_ = register_module("net", std::move(net));
}

PolicySample PortablePolicy::sample(int64_t k, bool greedy, double noise_std) { return net_->forward(inputs_, k, greedy, noise_std); }

PolicySample PortablePolicy::evaluate(const torch::Tensor& actions) {
  return net_->forward(inputs_, actions.size(0), /*greedy=*/false, 0.0, actions);
}

std::string PortablePolicy::fixed_settings() const {
  const PortableOptions& o = net_->options();
  return "portable;hidden=" + std::to_string(o.hidden) + ";scorer=" + std::to_string(o.scorer) +
         ";affinity=" + std::to_string(o.affinity) + (o.graph_rounds > 0 ? ";graph=" + std::to_string(o.graph_rounds) : "") +
         (base_temperature_ != 1.0 ? ";logit_temperature=" + std::to_string(base_temperature_) : "");
}

torch::Tensor PortableNetImpl::choose(const PortableInputs& in, const torch::Tensor& enc, const torch::Tensor& keys,
                                      const torch::Tensor& encoder_gates, const torch::Tensor& offset, int64_t k, int64_t greedy_rows) {
  torch::NoGradGuard no_grad;
  const int64_t g = in.num_groups();
  const int64_t d = in.num_devices();
  const int64_t h2 = 2 * options_.hidden;
  torch::Tensor gumbel;
  if (greedy_rows < k) {
    gumbel = -torch::log(-torch::log(torch::rand({k, g, d}).clamp_(1e-10, 1.0 - 1e-7)));
    if (greedy_rows > 0) gumbel.narrow(0, 0, greedy_rows).zero_();
  }
  const torch::Tensor w_hh_t = dec_w_hh_.t();
  torch::Tensor hidden = torch::zeros({k, h2});
  torch::Tensor cell = torch::zeros({k, h2});
  torch::Tensor prev_input = torch::zeros({k, kPortablePairInputs});
  torch::Tensor devices = torch::full({k, g}, -1, torch::kLong);
  const auto chosen = devices.accessor<int64_t, 2>();
  RunningTotals totals(in, k);
  torch::Tensor dynamic = torch::zeros({k, d, kDynamicInputs});
  for (int64_t step = 0; step < g; ++step) {
    totals.fill(step, chosen, dynamic.data_ptr<float>());
    const torch::Tensor pair = torch::cat({in.pair[step].unsqueeze(0).expand({k, d, kPairFeatures}), dynamic}, 2);  // [K, D, P]
    const torch::Tensor gates = torch::addmm(encoder_gates[step] + prev_->forward(prev_input), hidden, w_hh_t);
    lstm_step_inplace(gates, hidden, cell);
    const torch::Tensor context = torch::mm(torch::softmax(torch::mm(hidden, keys), 1), enc[0]);
    torch::Tensor logits = pointer_logits(torch::cat({hidden, context}, 1), pair) + offset.select(1, step);
    if (gumbel.defined()) logits += gumbel.select(1, step);
    const torch::Tensor pick = logits.argmax(1);
    devices.select(1, step).copy_(pick);
    prev_input = pair.gather(1, pick.view({k, 1, 1}).expand({k, 1, kPortablePairInputs})).squeeze(1);
    for (int64_t s = 0; s < k; ++s) totals.advance(step, s, chosen[s][step]);
  }
  return devices;
}

Status save_portable(const std::string& path, PortableNet& net, torch::optim::Optimizer* optimizer, int64_t updates,
                     const WeightAverage* average) {
  try {
    const PortableOptions& o = net->options();
    torch::serialize::OutputArchive archive;
    archive.write("devplace_policy", torch::tensor({kPolicyFileVersion, int64_t{o.hidden}, int64_t{o.scorer}, int64_t{o.graph_rounds}}, torch::kLong));
    archive.write("settings", torch::tensor({o.temperature, o.logit_clip, o.affinity}, torch::kDouble));
    archive.write("updates", torch::tensor({updates}, torch::kLong));
    torch::serialize::OutputArchive net_archive;
    net->save(net_archive);
    archive.write("net", net_archive);
    if (optimizer != nullptr) {
      torch::serialize::OutputArchive optimizer_archive;
      optimizer->save(optimizer_archive);
      archive.write("optimizer", optimizer_archive);
    }
    if (average != nullptr && !average->weights.empty()) {
      torch::serialize::OutputArchive average_archive;
      average_archive.write("from", torch::tensor({average->from}, torch::kLong));
      for (size_t i = 0; i < average->weights.size(); ++i) average_archive.write(std::to_string(i), average->weights[i]);
      archive.write("average", average_archive);
    }
    save_archive_atomically(archive, path);
  } catch (const std::exception& e) {
    return internal_error(path + ": cannot write the policy: " + std::string(e.what()).substr(0, 200));
  }
  return Status::ok_status();
}

Result<LoadedPortable> load_portable(const std::string& path) {
  if (!std::filesystem::is_regular_file(path)) return invalid_input(path + ": no such policy file");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const std::exception&) {
    return invalid_input(path + ": not a devplace policy file (cannot read it)");
  }
  try {
    torch::Tensor meta, settings, updates;
    archive.read("devplace_policy", meta);
    // [version, hidden, scorer] and, since the graph encoder, its rounds.
    if (meta.scalar_type() != torch::kLong || (meta.numel() != 3 && meta.numel() != 4)) return invalid_input(path + ": not a devplace policy file");
    if (meta[0].item<int64_t>() != kPolicyFileVersion) return invalid_input(path + ": a policy file of another devplace version");
    archive.read("settings", settings);
    archive.read("updates", updates);
    if (settings.scalar_type() != torch::kDouble || settings.numel() != 3 || updates.numel() != 1)
      return invalid_input(path + ": a damaged policy file (its settings have the wrong shape)");
    PortableOptions o;
    const int64_t hidden = meta[1].item<int64_t>(), scorer = meta[2].item<int64_t>();
    if (hidden < 1 || hidden > 4096 || scorer < 1 || scorer > 4096) return invalid_input(path + ": a damaged policy file (sizes out of range)");
    o.hidden = static_cast<int>(hidden);
    o.scorer = static_cast<int>(scorer);
    const int64_t rounds = meta.numel() == 4 ? meta[3].item<int64_t>() : 0;
    if (rounds < 0 || rounds > kMaxGraphRounds) return invalid_input(path + ": a damaged policy file (graph rounds out of range)");
    o.graph_rounds = static_cast<int>(rounds);
    o.temperature = settings[0].item<double>();
    o.logit_clip = settings[1].item<double>();
    o.affinity = settings[2].item<double>();
    if (!(o.temperature > 0) || !std::isfinite(o.logit_clip) || !std::isfinite(o.affinity))
      return invalid_input(path + ": a damaged policy file (bad settings)");
    LoadedPortable loaded;
    loaded.net = PortableNet(o);
    std::vector<std::vector<int64_t>> shapes;
    for (const torch::Tensor& p : loaded.net->parameters()) shapes.push_back(p.sizes().vec());
    torch::serialize::InputArchive net_archive;
    archive.read("net", net_archive);
    loaded.net->load(net_archive);
    // torch's load takes a stored tensor's shape as it is: check it against the settings.
    const std::vector<torch::Tensor> params = loaded.net->parameters();
    for (size_t i = 0; i < params.size(); ++i) {
      if (params[i].sizes().vec() != shapes[i] || params[i].scalar_type() != torch::kFloat)
        return invalid_input(path + ": a damaged policy file (a weight has the wrong shape for its settings)");
    }
    loaded.updates = updates.item<int64_t>();
    torch::serialize::InputArchive optimizer_archive;
    loaded.has_optimizer = archive.try_read("optimizer", optimizer_archive);
    torch::serialize::InputArchive average_archive;
    if (archive.try_read("average", average_archive)) {
      torch::Tensor from;
      average_archive.read("from", from);
      if (from.scalar_type() != torch::kLong || from.numel() != 1 || from.item<int64_t>() < 0 || from.item<int64_t>() >= loaded.updates)
        return invalid_input(path + ": a damaged checkpoint (its weight average's start is out of range)");
      loaded.has_average = true;
      loaded.average.from = from.item<int64_t>();
      for (size_t i = 0; i < params.size(); ++i) {
        torch::Tensor w;
        average_archive.read(std::to_string(i), w);
        if (w.sizes() != params[i].sizes() || w.scalar_type() != torch::kFloat || !torch::isfinite(w).all().item<bool>())
          return invalid_input(path + ": a damaged checkpoint (a weight average has the wrong shape or is not finite)");
        loaded.average.weights.push_back(w);
      }
    }
    for (const torch::Tensor& p : loaded.net->parameters()) {
      if (!torch::isfinite(p).all().item<bool>()) return invalid_input(path + ": a damaged policy file (a weight is not finite)");
    }
    return loaded;
  } catch (const std::exception& e) {
    return invalid_input(path + ": a damaged policy file (" + std::string(e.what()).substr(0, 120) + ")");
  }
}

Status load_portable_optimizer(const std::string& path, torch::optim::Optimizer& optimizer) {
  try {
    torch::serialize::InputArchive archive, optimizer_archive;
    archive.load_from(path);
    archive.read("optimizer", optimizer_archive);
    optimizer.load(optimizer_archive);
  } catch (const std::exception& e) {
    return invalid_input(path + ": cannot resume from it (" + std::string(e.what()).substr(0, 120) + ")");
  }
  return Status::ok_status();
}

std::string shipped_policy_path() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("DEVPLACE_PRETRAINED"); env != nullptr && *env != '\0') return env;
#ifdef DEVPLACE_SOURCE_MODELS_DIR
  if (fs::is_regular_file(DEVPLACE_SOURCE_MODELS_DIR "/pretrained.pt")) return DEVPLACE_SOURCE_MODELS_DIR "/pretrained.pt";
#endif
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path installed = exe.parent_path().parent_path() / "share" / "devplace" / "pretrained.pt";
    if (fs::is_regular_file(installed)) return installed.string();
  }
  return {};
}

}  // namespace devplace::rl
