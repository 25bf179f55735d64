// File: policy.h
// The paper's placement network: a sequence-to-sequence model over a
// sequence of groups (Mirhoseini et al. 2017, section 3).
// - Encoder: a linear embedding of each group's features, then a
//   bidirectional LSTM.
// - Decoder: an LSTM cell that emits one device per group. Its input is the
//   embedding of the device it chose for the previous group (a start token
//   first) and the encoder state of the current group. Content-based
//   (Bahdanau) attention over all encoder states gives a context; the logits
//   come from [decoder state, context].
// - Logits: divided by a temperature, squashed by C x tanh, plus Gaussian
//   noise early in training (as the TensorFlow implementation did). Devices
//   a group may not use are masked.
//
// Speed (a policy update is a few hundred decoder steps of a batch of K):
// the decoder's inputs do not depend on its attention, only on the device
// chosen before, so a forward pass runs twice:
// 1. without gradients, step by step, to choose the devices: the
//    encoder's share of the gates is projected for all steps at once, the
//    mask and the noise are drawn up front, and a device is drawn with the
//    Gumbel-max trick (argmax of logits plus Gumbel noise);
// 2. with gradients, given the chosen devices: the decoder LSTM over the
//    whole sequence as one autograd node (lstm_sequence.h), then attention, logits,
//    log-probabilities and entropies for all steps at once, as large
//    matrix products.
// So the autograd graph holds no per-step attention or output nodes.
// Only rl/ includes torch headers.
#pragma once

#include <torch/torch.h>

#include "place/placer.h"
#include "rl/training_options.h"
#include "rl/features.h"
#include "rl/placement_policy.h"

namespace devplace::rl {

// How a decoder step scores the encoder states (both content-based):
// additive is Bahdanau et al.'s v . tanh(W_e e_j + W_d h), which the paper
// used; multiplicative is Luong et al.'s e_j . W h. Additive costs G x A
// tanh per step (G^2 x A per placement, with its backward pass), which
// dominates a policy update at a few hundred groups; multiplicative is a
// matrix product.
enum class Attention { kAdditive, kMultiplicative };

struct PolicyOptions {
  int hidden = 64;            // per encoder direction; the decoder has 2 x hidden
  int device_embedding = 16;
  int attention = 64;         // the additive attention's width
  Attention attention_kind = Attention::kMultiplicative;
  double temperature = 2.0;
  double logit_clip = 5.0;    // C in C x tanh(logits / temperature)
  // A fixed bonus on the logit of the device the previous group got, so
  // that a young policy places runs of neighbouring groups together
  // (--stickiness; docs/rl.md says what it changed). 0: none, the paper's
  // policy.
  double stickiness = 0.0;
  // Neighbour devices: at each step the decoder also sees where the
  // already-placed neighbours of the group went (features.h,
  // PlacedNeighbours): a [D] histogram of their devices, weighted by the
  // bytes exchanged. It enters the decoder's input and, through a linear map
  // that starts at zero, the logits. So the policy can learn "go where the
  // data is" along the graph's edges rather than along the decoding order.
  // Off: the paper's policy.
  bool neighbour_devices = false;
  // A fixed bonus X x histogram on the logits (--affinity), the graph
  // version of stickiness; needs neighbour_devices. 0: none.
  double affinity = 0.0;
  // The speed prior (--speed-prior X, rl): a fixed bonus X log(t_min /
  // t_d) on the logit of device d for a group whose time there is t_d
  // (t_min: its fastest allowed device), so that a fresh policy does not
  // put a group on a device that runs it 4 times slower 1 time in 5. The
  // bonuses come with the policy's inputs (Seq2SeqPolicy's `prior`). 0:
  // none.
  double speed_prior = 0.0;
  // Device loads (--load-input on): at each step the decoder also sees
  // how loaded each device is by the groups placed so far: their time there
  // over the whole graph's work on its fastest devices, and their resident
  // bytes over its memory (features.h, PortableFeatures' work and memory).
  // The loads enter the decoder's input, and the loads the device would
  // have with this group on it enter the logits through a linear map that
  // starts at zero, shared by the devices. So the policy can learn "give
  // this group to a device that has time left", the slow CPU included,
  // rather than learn each device's share group by group. Off: the
  // paper's policy.
  bool load_input = false;
};

// The defaults with --policy-hidden and --attention applied.
PolicyOptions policy_options(const TrainingRunOptions& training);

class Seq2SeqNetImpl : public torch::nn::Module {
 public:
  Seq2SeqNetImpl(int feature_dim, int num_devices, const PolicyOptions& options);

  // features: [B, G, F] float; allowed: [B, G, D] bool (some device true
  // per row); B is 1 (one sequence shared by the K samples) or K (a
  // sequence per sample). Returns K placements of the G groups:
  // - forced undefined, greedy false: sampled, with logit noise `noise_std`;
  // - forced undefined, greedy true: the most likely device at each step;
  // - forced [K, G] int64: those devices (teacher forcing), with their
  //   log-probabilities.
  // log_prob and entropy are per step, [K, G].
  // `neighbours`: the groups' placed neighbours, for neighbour_devices:
  // one list shared by the K samples, or one per sample; null: none (the
  // histogram input is unused).
  // `prior`: [B, G, D] float bonuses added to the logits (the speed prior),
  // or undefined for none.
  // `loads`: [B, G, D, 2] float, each group's work and memory share on
  // each device (load_input), or [G, D, 2] shared by the K samples, or
  // undefined for none.
  PolicySample forward(const torch::Tensor& features, const torch::Tensor& allowed, int64_t k, bool greedy,
                       double noise_std, const torch::Tensor& forced = {},
                       const std::vector<PlacedNeighbours>* neighbours = nullptr, const torch::Tensor& prior = {},
                       const torch::Tensor& loads = {});
  // The logit bonuses, which are options, not parameters: "stickiness=0;affinity=3".
  std::string fixed_settings() const;
  // The final logits (bonuses and mask included) divided by t, in both
  // passes (PlacementPolicy::set_sampling_temperature).
  void set_sampling_temperature(double t) { sampling_temperature_ = t; }

 private:
  PolicyOptions options_;
  double sampling_temperature_ = 1.0;
  int64_t num_devices_;
  torch::nn::Linear embed_{nullptr};
  // LSTM weights (lstm_sequence.h): the encoder's two directions, and the
  // decoder, whose input is [device embedding, encoder state].
  torch::Tensor enc_w_ih_[2], enc_w_hh_[2], enc_bias_[2];
  torch::Tensor dec_w_ih_, dec_w_hh_, dec_bias_;
  torch::nn::Embedding device_embed_{nullptr};
  torch::nn::Linear attend_encoder_{nullptr}, attend_decoder_{nullptr}, attend_score_{nullptr};
  torch::nn::Linear out_{nullptr};
  // With neighbour_devices: the histogram's share of the decoder gates
  // [8H, D], and its direct map to the logits (zero at the start).
  torch::Tensor dec_w_nb_;
  torch::nn::Linear out_nb_{nullptr};
  // With load_input: the loads' share of the decoder gates [8H, 2D], and
  // the weights [2] of the projected loads (work, memory) in the logits
  // (zero at the start).
  torch::Tensor dec_w_load_, out_load_;
};
TORCH_MODULE(Seq2SeqNet);

// The rl placer's policy: the seq2seq network over fixed group features.
class Seq2SeqPolicy : public PlacementPolicy {
 public:
  // features [G, F], allowed [G, D] bool; neighbours for
  // options.neighbour_devices; prior [G, D] float, fixed logit bonuses
  // (speed_prior_bonus), or undefined; loads [G, D, 2] for
  // options.load_input (each group's work and memory share per device).
  Seq2SeqPolicy(torch::Tensor features, torch::Tensor allowed, int num_devices, const PolicyOptions& options,
                PlacedNeighbours neighbours = {}, torch::Tensor prior = {}, torch::Tensor loads = {});
  PolicySample sample(int64_t k, bool greedy, double noise_std) override;
  PolicySample evaluate(const torch::Tensor& actions) override;
  // One decision per group: the actions are the devices.
  torch::Tensor actions_for(const torch::Tensor& devices) override;
  std::string fixed_settings() const override { return net_->fixed_settings(); }
  void set_sampling_temperature(double t) override { net_->set_sampling_temperature(t); }

 private:
  torch::Tensor features_, allowed_;  // [1, G, F], [1, G, D]
  torch::Tensor prior_;               // [1, G, D] or undefined
  torch::Tensor loads_;               // [G, D, 2] or undefined
  std::vector<PlacedNeighbours> neighbours_;  // one list, shared by the samples
  Seq2SeqNet net_{nullptr};
};

}  // namespace devplace::rl
