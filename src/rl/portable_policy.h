// File: portable_policy.h
// The portable placement network: one set of weights that places any graph
// on any cluster, so that it can be trained over many problems (`devplace
// pretrain`) and place a graph it has never seen at once (--method
// pretrained) or start rl's training there (--init).
//
// The rl placer's Seq2SeqNet cannot: its input has a flag per device and
// its output layer a row per device, so its weights mean "device 3" of one
// cluster. Here nothing depends on the number of devices or their order:
// - Encoder: as Seq2SeqNet's, over the portable group features
//   (features.h, PortableFeatures::group): a linear embedding, then a
//   bidirectional LSTM; or, with graph_rounds > 0, rounds of message
//   passing over the group graph (graph_encoder.h).
// - Decoder: an LSTM cell whose input is the group's encoder state and the
//   features of the device the previous group got; multiplicative attention
//   over the encoder states gives a context.
// - Output: a pointer over the devices. Device d's logit for group g is
//   v . tanh(W_q [state, context] + W_k x_gd), where x_gd describes the pair:
//   the static PortableFeatures::pair (its speed, room and the group's
//   weight there) and what the decoder has placed so far: the placed
//   neighbours' bytes on d (the histogram of Seq2SeqNet's neighbour
//   devices), the work and the memory already on d, and whether the previous
//   group went there. Those running totals are what break the symmetry
//   between identical devices: a device gets a group because of what it
//   already holds.
// - As Seq2SeqNet: logits squashed by C x tanh(./temperature), a fixed
//   affinity bonus times the neighbour histogram, masked devices, and the
//   same two-pass forward (choose without gradients step by step, then
//   score every step at once with gradients).
// Only rl/ includes torch headers.
#pragma once

#include <memory>
#include <string>

#include <torch/torch.h>

#include "common/status.h"
#include "group/grouping.h"
#include "rl/features.h"
#include "rl/graph_encoder.h"
#include "rl/placement_policy.h"
#include "sim/problem.h"

namespace devplace::rl {

// The pair features the output layer sees: PortableFeatures::pair, then
// the neighbour histogram, the work and memory on the device so far, and
// the previous group's device.
inline constexpr int kPortablePairInputs = kPairFeatures + 4;

// One problem as the portable network reads it.
struct PortableInputs {
  torch::Tensor group;    // [G, kPortableGroupFeatures]
  torch::Tensor pair;     // [G, D, kPairFeatures]
  torch::Tensor allowed;  // [G, D] bool
  PortableFeatures raw;   // work and memory per group and device, for the running totals
  PlacedNeighbours neighbours;
  GraphEdges edges;       // the group graph, for the graph encoder
  int64_t num_groups() const { return group.size(0); }
  int64_t num_devices() const { return allowed.size(1); }
};
PortableInputs portable_inputs(const Problem& problem, const Grouping& grouping);

struct PortableOptions {
  int hidden = 64;          // per encoder direction; the decoder has 2 x hidden
  int scorer = 32;          // the width of the device scorer (W_q, W_k)
  double temperature = 2.0;
  double logit_clip = 5.0;
  double affinity = 3.0;    // the fixed bonus on the placed neighbours' devices
  int graph_rounds = 0;     // 0: the sequence encoder (BiLSTM); N > 0: the graph encoder, N rounds
};

class PortableNetImpl : public torch::nn::Module {
 public:
  explicit PortableNetImpl(const PortableOptions& options);

  // K placements of one problem's groups (see Seq2SeqNetImpl::forward for
  // greedy, noise and forced): `inputs` from portable_inputs.
  PolicySample forward(const PortableInputs& inputs, int64_t k, bool greedy, double noise_std,
                       const torch::Tensor& forced = {});
  // Pass 1 alone, without gradients: K placements, the first
  // `greedy_rows` greedy and the others sampled (what --method pretrained
  // needs, at half the cost of forward()).
  torch::Tensor decode(const PortableInputs& inputs, int64_t k, int64_t greedy_rows);
  const PortableOptions& options() const { return options_; }
  // Divides the logits by T when sampling and scoring (T > 1: flatter):
  // rl --init-temperature, to fine-tune from a pretrained policy whose
  // decisions are nearly certain. Not stored in policy files.
  void set_logit_temperature(double t) { logit_temperature_ = t; }
  double logit_temperature() const { return logit_temperature_; }

 private:
  struct Encoded {
    torch::Tensor states;  // [1, G, 2H]
    torch::Tensor keys;    // [2H, G]
    torch::Tensor gates;   // [G, 8H]
  };
  Encoded encode(const PortableInputs& inputs);
  // The device logits from the decoder state and context [..., 4H] and the
  // pair inputs [..., D, kPortablePairInputs]: C tanh(v . tanh(W_q x + W_k
  // x_d) / temperature) plus the affinity times the neighbour histogram.
  torch::Tensor pointer_logits(const torch::Tensor& state_context, const torch::Tensor& pair);
  torch::Tensor choose(const PortableInputs& inputs, const torch::Tensor& enc, const torch::Tensor& keys,
                       const torch::Tensor& encoder_gates, const torch::Tensor& offset, int64_t k, int64_t greedy_rows);

  PortableOptions options_;
  double logit_temperature_ = 1.0;
  torch::nn::Linear embed_{nullptr};
  torch::Tensor enc_w_ih_[2], enc_w_hh_[2], enc_bias_[2];  // the sequence encoder
  GraphEncoder graph_{nullptr};                            // or the graph encoder
  torch::Tensor dec_w_ih_, dec_w_hh_, dec_bias_;  // decoder: input [encoder state]; the previous device through prev_
  torch::nn::Linear prev_{nullptr};               // previous pair's inputs -> decoder gates
  torch::nn::Linear attend_{nullptr};
  torch::nn::Linear query_{nullptr}, key_{nullptr}, score_{nullptr};
};
TORCH_MODULE(PortableNet);


// A placement policy over one problem with a (possibly shared) portable
// network: what rl trains with --init and what pretraining trains, one per
// problem of its corpus.
class PortablePolicy : public PlacementPolicy {
 public:
  PortablePolicy(PortableNet net, PortableInputs inputs);
  PolicySample sample(int64_t k, bool greedy, double noise_std) override;
  PolicySample evaluate(const torch::Tensor& actions) override;
  torch::Tensor actions_for(const torch::Tensor& devices) override { return devices; }
  std::string fixed_settings() const override;
  PortableNet& net() { return net_; }
  const PortableInputs& inputs() const { return inputs_; }
  // On top of the net's logit temperature when this policy was made
  // (rl --init-temperature): that times t.
  void set_sampling_temperature(double t) override { net_->set_logit_temperature(base_temperature_ * t); }

 private:
  PortableInputs inputs_;
  double base_temperature_ = 1.0;
  PortableNet net_{nullptr};
};

// A policy file (`devplace pretrain --out`): the network's options and
// weights, written atomically. With an optimizer and an update count it is
// also pretraining's checkpoint. Errors name the file.
// A checkpoint may also hold a running average of the weights (pretrain
// --average-from): the mean of the weights after each update since `from`.
struct WeightAverage {
  int64_t from = 0;                    // averaging began after this many updates
  std::vector<torch::Tensor> weights;  // one per net->parameters(); empty: none yet
};
Status save_portable(const std::string& path, PortableNet& net, torch::optim::Optimizer* optimizer = nullptr,
                     int64_t updates = 0, const WeightAverage* average = nullptr);
struct LoadedPortable {
  PortableNet net{nullptr};
  int64_t updates = 0;
  bool has_optimizer = false;
  bool has_average = false;
  WeightAverage average;  // when has_average
};
// Reads a policy file; load_portable_optimizer then reads the optimizer
// state of a checkpoint into an optimizer over the loaded net's parameters.
Result<LoadedPortable> load_portable(const std::string& path);
Status load_portable_optimizer(const std::string& path, torch::optim::Optimizer& optimizer);

// The policy file --method pretrained and --init pretrained use: the
// shipped one (models/pretrained.pt in the source tree, share/devplace/
// once installed), or $DEVPLACE_PRETRAINED when set. "" when none is found.
std::string shipped_policy_path();

}  // namespace devplace::rl
