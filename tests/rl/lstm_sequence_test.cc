// lstm_sequence: the fused layer and its hand-written backward pass agree
// with LibTorch's own autograd through the same LSTM equations.
#include <gtest/gtest.h>

#include "rl/lstm_sequence.h"

namespace devplace::rl {
namespace {

// The reference: the same layer from torch ops, step by step.
torch::Tensor reference_lstm(const torch::Tensor& projected, const torch::Tensor& w_hh, bool reverse) {
  const int64_t batch = projected.size(0), steps = projected.size(1), n = w_hh.size(1);
  torch::Tensor h = torch::zeros({batch, n}), c = torch::zeros({batch, n});
  std::vector<torch::Tensor> out(steps);
  for (int64_t t = 0; t < steps; ++t) {
    const int64_t tau = reverse ? steps - 1 - t : t;
    const torch::Tensor z = projected.select(1, tau) + torch::mm(h, w_hh.t());
    const auto parts = z.chunk(4, 1);
    c = torch::sigmoid(parts[1]) * c + torch::sigmoid(parts[0]) * torch::tanh(parts[2]);
    h = torch::sigmoid(parts[3]) * torch::tanh(c);
    out[tau] = h;
  }
  return torch::stack(out, 1);
}

class LstmSequenceTest : public ::testing::TestWithParam<bool> {};

TEST_P(LstmSequenceTest, MatchesAutogradInValueAndGradient) {
  const bool reverse = GetParam();
  torch::manual_seed(7);
  const int64_t batch = 3, steps = 9, n = 5;
  torch::Tensor projected = torch::randn({batch, steps, 4 * n}).requires_grad_(true);
  torch::Tensor w_hh = (0.5 * torch::randn({4 * n, n})).requires_grad_(true);
  // A loss that weighs every output differently.
  const torch::Tensor weights = torch::randn({batch, steps, n});

  const torch::Tensor ours = lstm_sequence(projected, w_hh, reverse);
  (ours * weights).sum().backward();
  const torch::Tensor g_projected = projected.grad().clone(), g_w = w_hh.grad().clone();
  projected.mutable_grad().zero_();
  w_hh.mutable_grad().zero_();

  const torch::Tensor ref = reference_lstm(projected, w_hh, reverse);
  (ref * weights).sum().backward();

  EXPECT_TRUE(torch::allclose(ours, ref, 1e-5, 1e-6));
  EXPECT_TRUE(torch::allclose(g_projected, projected.grad(), 1e-4, 1e-6));
  EXPECT_TRUE(torch::allclose(g_w, w_hh.grad(), 1e-4, 1e-6));
  // The gradient is not trivially zero.
  EXPECT_GT(g_w.abs().sum().item<float>(), 1e-3f);
}

INSTANTIATE_TEST_SUITE_P(Directions, LstmSequenceTest, ::testing::Values(false, true));

TEST(LstmStep, MatchesOneStepOfTheSequence) {
  torch::manual_seed(3);
  const int64_t batch = 2, n = 4;
  const torch::Tensor projected = torch::randn({batch, 1, 4 * n});
  const torch::Tensor w_hh = torch::randn({4 * n, n});
  torch::Tensor h = torch::zeros({batch, n}), c = torch::zeros({batch, n});
  const torch::Tensor gates = projected.select(1, 0).contiguous();
  lstm_step_inplace(gates, h, c);
  EXPECT_TRUE(torch::allclose(h, lstm_sequence(projected, w_hh, false).select(1, 0), 1e-6, 1e-7));
}

}  // namespace
}  // namespace devplace::rl
