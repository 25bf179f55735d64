// File: lstm_sequence.cc
// The fused LSTM layer and its hand-written backward pass (see
// lstm_sequence.h).
#include "rl/lstm_sequence.h"

#include "common/check.h"
#include "rl/lstm_cell.h"

namespace devplace::rl {

namespace {

using torch::autograd::AutogradContext;
using torch::autograd::tensor_list;

class LstmSequence : public torch::autograd::Function<LstmSequence> {
 public:
  static torch::Tensor forward(AutogradContext* ctx, const torch::Tensor& projected, const torch::Tensor& w_hh, bool reverse) {
    DEVPLACE_CHECK(projected.scalar_type() == torch::kFloat && w_hh.scalar_type() == torch::kFloat);
    const int64_t batch = projected.size(0), steps = projected.size(1), n = w_hh.size(1);
    DEVPLACE_CHECK(projected.size(2) == 4 * n && w_hh.size(0) == 4 * n);
    // Step-major, so that each step's rows are contiguous.
    torch::Tensor gates = projected.detach().transpose(0, 1).contiguous();  // [T, B, 4H], activated in place
    torch::Tensor cells = torch::empty({steps, batch, n});
    torch::Tensor tanh_c = torch::empty({steps, batch, n});
    torch::Tensor hs = torch::empty({steps, batch, n});
    const torch::Tensor w_t = w_hh.detach().t();
    for (int64_t t = 0; t < steps; ++t) {
      const int64_t tau = reverse ? steps - 1 - t : t;
      const int64_t prev = reverse ? tau + 1 : tau - 1;
      torch::Tensor z = gates[tau];
      if (t > 0) z.addmm_(hs[prev], w_t);
      lstm_cell_forward(z.data_ptr<float>(), t > 0 ? cells[prev].data_ptr<float>() : nullptr, cells[tau].data_ptr<float>(),
                   tanh_c[tau].data_ptr<float>(), hs[tau].data_ptr<float>(), batch, n);
    }
    ctx->save_for_backward({gates, cells, tanh_c, hs, w_hh});
    ctx->saved_data["reverse"] = reverse;
    return hs.transpose(0, 1).contiguous();
  }

  static tensor_list backward(AutogradContext* ctx, tensor_list grad_outputs) {
    const auto saved = ctx->get_saved_variables();
    const torch::Tensor& gates = saved[0];
    const torch::Tensor& cells = saved[1];
    const torch::Tensor& tanh_c = saved[2];
    const torch::Tensor& hs = saved[3];
    const torch::Tensor w_hh = saved[4].detach().contiguous();
    const bool reverse = ctx->saved_data["reverse"].toBool();
    const int64_t steps = hs.size(0), batch = hs.size(1), n = hs.size(2);
    const torch::Tensor dh_out = grad_outputs[0].defined() ? grad_outputs[0].transpose(0, 1).contiguous() : torch::zeros_like(hs);
    torch::Tensor dz = torch::empty({steps, batch, 4 * n});
    torch::Tensor dh_next = torch::zeros({batch, n});
    torch::Tensor dc_next = torch::zeros({batch, n});
    float* dcn = dc_next.data_ptr<float>();
    for (int64_t t = steps - 1; t >= 0; --t) {
      const int64_t tau = reverse ? steps - 1 - t : t;
      const int64_t prev = reverse ? tau + 1 : tau - 1;
      const float* act = gates[tau].data_ptr<float>();
      const float* tc = tanh_c[tau].data_ptr<float>();
      const float* c_prev = t > 0 ? cells[prev].data_ptr<float>() : nullptr;
      const float* dho = dh_out[tau].data_ptr<float>();
      const float* dhn = dh_next.data_ptr<float>();
      float* d = dz[tau].data_ptr<float>();
      for (int64_t b = 0; b < batch; ++b) {
        const float* a = act + b * 4 * n;
        float* db = d + b * 4 * n;
        for (int64_t j = 0; j < n; ++j) {
          const int64_t at = b * n + j;
          const float i = a[j], f = a[n + j], g = a[2 * n + j], o = a[3 * n + j];
          const float dh = dho[at] + dhn[at];
          const float dc = dh * o * (1.0f - tc[at] * tc[at]) + dcn[at];
          db[j] = dc * g * i * (1.0f - i);
          db[n + j] = dc * (c_prev ? c_prev[at] : 0.0f) * f * (1.0f - f);
          db[2 * n + j] = dc * i * (1.0f - g * g);
          db[3 * n + j] = dh * tc[at] * o * (1.0f - o);
          dcn[at] = dc * f;
        }
      }
      if (t > 0) {
        torch::mm_out(dh_next, dz[tau], w_hh);
      }
    }
    // The weight gradient over all steps at once: sum_t dz_t^T h_{t-1}.
    torch::Tensor h_prev = torch::zeros_like(hs);
    if (steps > 1) {
      if (reverse) {
        h_prev.narrow(0, 0, steps - 1).copy_(hs.narrow(0, 1, steps - 1));
      } else {
        h_prev.narrow(0, 1, steps - 1).copy_(hs.narrow(0, 0, steps - 1));
      }
    }
    const torch::Tensor dw = torch::mm(dz.reshape({steps * batch, 4 * n}).t(), h_prev.reshape({steps * batch, n}));
    return {dz.transpose(0, 1), dw, torch::Tensor()};
  }
};

}  // namespace

torch::Tensor lstm_sequence(const torch::Tensor& projected, const torch::Tensor& w_hh, bool reverse) {
  return LstmSequence::apply(projected, w_hh, reverse);
}

void lstm_step_inplace(const torch::Tensor& gates, torch::Tensor& hidden, torch::Tensor& cell) {
  const int64_t batch = hidden.size(0), n = hidden.size(1);
  DEVPLACE_CHECK(gates.is_contiguous() && hidden.is_contiguous() && cell.is_contiguous() && gates.size(1) == 4 * n);
  lstm_cell_step(gates.data_ptr<float>(), hidden.data_ptr<float>(), cell.data_ptr<float>(), batch, n);
}

}  // namespace devplace::rl
